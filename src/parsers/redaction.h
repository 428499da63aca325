#pragma once
/// \file Secrets kept out of everything the workbench shows or writes. A run folder is written by
/// scripts that also hold credentials: a malformed line of a trace can carry an access token, a
/// metadata field an environment dump. Diagnostics and exports pass their text through here; a
/// piece of raw input is only ever quoted as a short, redacted excerpt.

#include <QString>
#include <string_view>

namespace goblin {

/// What replaces a secret (a token, a key, a password, the credentials of a URL).
inline constexpr QLatin1String kRedacted{"[redacted]"};

/// The longest excerpt of raw input a message quotes, in characters.
constexpr int kExcerptChars = 60;

/// `text` with every secret replaced by kRedacted:
/// - access tokens by their shape: Hugging Face `hf_…`, GitHub `ghp_…`/`gho_…`/`ghu_…`/`ghs_…`/
///   `ghr_…`/`github_pat_…`, Slack `xox[bpars]-…`, OpenAI/Anthropic-style `sk-…`, AWS access key
///   ids `AKIA…`/`ASIA…`, JSON Web Tokens `eyJ….….…`, `Bearer …`;
/// - PEM private key blocks (`-----BEGIN … PRIVATE KEY-----` to its end, or to the end of the text);
/// - the password of a URL (`scheme://user:pass@host` keeps `scheme://` and `@host`);
/// - the value of every `KEY=value`, `KEY: value` or `"KEY": "value"` whose key names a secret
///   (password, passwd, pwd, passphrase, secret, token, api key, access key, private key,
///   credential, auth, authorization, cookie, session id; `tokens` counts nothing secret).
/// Everything else is kept as it is; applying it twice changes nothing more.
QString redactSecrets(const QString &text);

/// True when redactSecrets() would change `text`.
bool holdsSecret(const QString &text);

/// A piece of raw input as a message may quote it: decoded as UTF-8 (bad bytes as U+FFFD),
/// redacted (redactSecrets(), and any run of 32 or more key-like characters mixing upper case,
/// lower case and digits, such as a bare AWS secret key), then cut to `maxChars` characters
/// ("..." marks the cut) with control characters written as `\xNN`. Not quoted.
QString inputExcerpt(std::string_view raw, int maxChars = kExcerptChars);
QString inputExcerpt(const QString &text, int maxChars = kExcerptChars);

} // namespace goblin
