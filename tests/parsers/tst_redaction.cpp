// Issue 36 item 3: the one redaction every diagnostic and export passes through. Each row is a
// text as a diagnostic or an export could carry it, the secret in it, and what must survive.

#include "diagnostic.h"
#include "kernels/celltext.h"
#include "redaction.h"

#include <QTest>

using namespace goblin;

namespace {

// Fake credentials of each shape (none is real; each matches its provider's format).
const QString kHfToken = QStringLiteral("hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567");
const QString kGithubToken = QStringLiteral("ghp_0123456789abcdefghijABCDEFGHIJ012345");
const QString kGithubPat = QStringLiteral("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz");
const QString kSlackToken = QStringLiteral("xoxb-1234567890-0987654321-AbCdEfGhIjKl");
const QString kOpenAiKey = QStringLiteral("sk-proj-AbCdEfGhIjKlMnOpQrStUvWx");
const QString kAwsKeyId = QStringLiteral("AKIAIOSFODNN7EXAMPLE");
const QString kAwsSecret = QStringLiteral("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
const QString kJwt = QStringLiteral("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U");

} // namespace

class TestRedaction : public QObject
{
    Q_OBJECT

private slots:
    void redactsSecrets_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("secret");    ///< must not survive
        QTest::addColumn<QString>("kept");      ///< must survive (the words around it)

        QTest::newRow("hf token alone") << kHfToken << kHfToken.mid(3) << QString();
        QTest::newRow("hf token in a cell") << QStringLiteral("123,") + kHfToken + QStringLiteral(",456")
                                            << kHfToken.mid(3) << QStringLiteral("123,");
        QTest::newRow("HF_TOKEN=") << QStringLiteral("HF_TOKEN=") + kHfToken + QStringLiteral(" torchrun train.py")
                                   << kHfToken.mid(3) << QStringLiteral("torchrun train.py");
        QTest::newRow("github ghp_") << QStringLiteral("token ") + kGithubToken << kGithubToken.mid(4) << QStringLiteral("token");
        QTest::newRow("github_pat_") << kGithubPat << kGithubPat.mid(11) << QString();
        QTest::newRow("slack xoxb-") << QStringLiteral("x ") + kSlackToken << kSlackToken.mid(5) << QStringLiteral("x ");
        QTest::newRow("sk- key") << QStringLiteral("key ") + kOpenAiKey << kOpenAiKey.mid(3) << QStringLiteral("key ");
        QTest::newRow("AWS key id") << QStringLiteral("id ") + kAwsKeyId + QStringLiteral(" end") << kAwsKeyId
                                    << QStringLiteral(" end");
        QTest::newRow("aws_secret_access_key=") << QStringLiteral("aws_secret_access_key=") + kAwsSecret
                                                << kAwsSecret << QStringLiteral("aws_secret_access_key=");
        QTest::newRow("AWS_SECRET_ACCESS_KEY JSON") << QStringLiteral("{\"AWS_SECRET_ACCESS_KEY\": \"") + kAwsSecret +
                                                          QStringLiteral("\", \"HOME\": \"/root\"}")
                                                    << kAwsSecret << QStringLiteral("\"HOME\": \"/root\"");
        QTest::newRow("JWT") << QStringLiteral("auth header ") + kJwt << kJwt.mid(20) << QStringLiteral("auth header");
        QTest::newRow("Bearer") << QStringLiteral("Authorization Bearer abc.DEF-ghi_jkl123")
                                << QStringLiteral("abc.DEF-ghi_jkl123") << QStringLiteral("Bearer");
        QTest::newRow("PEM block") << QStringLiteral("x -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0123\n-----END RSA "
                                                     "PRIVATE KEY----- y")
                                   << QStringLiteral("MIIEowIBAAKCAQEA0123") << QStringLiteral(" y");
        QTest::newRow("PEM block cut short") << QStringLiteral("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B")
                                             << QStringLiteral("MIIEvQIBADANBgkqhkiG9w0B") << QString();
        QTest::newRow("password=") << QStringLiteral("user=bob,password=Hunter2Hunter2,port=5") << QStringLiteral("Hunter2")
                                   << QStringLiteral("user=bob,");
        QTest::newRow("passwd: in YAML") << QStringLiteral("passwd: Hunter2Hunter2") << QStringLiteral("Hunter2")
                                         << QStringLiteral("passwd:");
        QTest::newRow("\"password\": \"…\"") << QStringLiteral("{\"password\": \"Hunter2 Hunter2\", \"n\": 1}")
                                             << QStringLiteral("Hunter2") << QStringLiteral("\"n\": 1");
        QTest::newRow("DB_SECRET=") << QStringLiteral("DB_SECRET=s3cr3tvalue") << QStringLiteral("s3cr3tvalue")
                                    << QStringLiteral("DB_SECRET=");
        QTest::newRow("api_key=") << QStringLiteral("?api_key=0123abcd&x=1") << QStringLiteral("0123abcd")
                                  << QStringLiteral("&x=1");
        QTest::newRow("WANDB_API_KEY=") << QStringLiteral("WANDB_API_KEY=0123456789abcdef") << QStringLiteral("0123456789abcdef")
                                        << QStringLiteral("WANDB_API_KEY=");
        QTest::newRow("--password=") << QStringLiteral("train.py --password=Hunter2Hunter2") << QStringLiteral("Hunter2")
                                     << QStringLiteral("train.py");
        QTest::newRow("URL credentials") << QStringLiteral("postgres://trainer:Hunter2Hunter2@db:5432/runs")
                                         << QStringLiteral("Hunter2") << QStringLiteral("@db:5432/runs");
    }

    void redactsSecrets()
    {
        QFETCH(QString, text);
        QFETCH(QString, secret);
        QFETCH(QString, kept);
        QVERIFY(text.contains(secret));
        const QString redacted = redactSecrets(text);
        QVERIFY2(!redacted.contains(secret), qPrintable(redacted));
        QVERIFY2(redacted.contains(kRedacted), qPrintable(redacted));
        QVERIFY2(redacted.contains(kept), qPrintable(redacted));
        QVERIFY(holdsSecret(text));
        QCOMPARE(redactSecrets(redacted), redacted);  // applying it twice changes nothing more
        // Excerpts of raw input and diagnostics pass the same redaction.
        QVERIFY(!inputExcerpt(text, 500).contains(secret));
        const Diagnostic d(Severity::Warning, QStringLiteral("trace.csv"), 7, QStringLiteral("bad value '%1'").arg(text));
        QVERIFY2(!d.message.contains(secret), qPrintable(d.message));
        QCOMPARE(d.file, QStringLiteral("trace.csv"));
        QCOMPARE(d.line, 7);
    }

    void keepsOrdinaryText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("a diagnostic") << QStringLiteral("row has 12 fields, the header 19: an unescaped quote; row skipped");
        QTest::newRow("tokens per second") << QStringLiteral("tokens_per_sec=1234.5 and tokens: 99");
        QTest::newRow("kernel name") << QStringLiteral("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1");
        QTest::newRow("mangled name")
            << QStringLiteral("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>");
        QTest::newRow("task- and disk-") << QStringLiteral("task-0123456789abcdefghij disk-0123456789abcdefghij");
        QTest::newRow("a URL without credentials") << QStringLiteral("see https://rocm.docs.amd.com/en/latest/");
        QTest::newRow("a path") << QStringLiteral("/home/user/runs/bert-large/torch_profile.json");
        QTest::newRow("key words in prose") << QStringLiteral("no key column; the token budget and the secret of speed");
        QTest::newRow("author=") << QStringLiteral("author=alice");
    }

    void keepsOrdinaryText()
    {
        QFETCH(QString, text);
        QCOMPARE(redactSecrets(text), text);
        QVERIFY(!holdsSecret(text));
    }

    void excerptIsShortAndVisible_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<QString>("expected");
        QTest::newRow("short") << QByteArray("12abc") << QStringLiteral("12abc");
        QTest::newRow("control characters") << QByteArray("a\tb\r\n\x01") << QStringLiteral("a\\x09b\\x0d\\x0a\\x01");
        QTest::newRow("cut at 60") << QByteArray(100, 'x') << QString(57, QLatin1Char('x')) + QStringLiteral("...");
        // A token cut by the excerpt's end is redacted before the cut, not left as a head.
        QTest::newRow("token past the cut") << QByteArray(52, ' ') + "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
                                            << QString(52, QLatin1Char(' ')) + QStringLiteral("[reda...");
        QTest::newRow("bare AWS secret key") << QByteArray("1,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY,2")
                                             << QStringLiteral("1,[redacted],2");
        QTest::newRow("hex digest kept") << QByteArray("sha 0123456789abcdef0123456789abcdef01234567")
                                         << QStringLiteral("sha 0123456789abcdef0123456789abcdef01234567");
    }

    void excerptIsShortAndVisible()
    {
        QFETCH(QByteArray, raw);
        QFETCH(QString, expected);
        const QString excerpt = inputExcerpt(std::string_view(raw.constData(), std::size_t(raw.size())));
        QCOMPARE(excerpt, expected);
        QVERIFY(excerpt.size() <= kExcerptChars + 3 * 5);  // "\xNN" escapes widen a few characters
        QCOMPARE(kernels::shown(std::string_view(raw.constData(), std::size_t(raw.size()))),
                 QLatin1Char('\'') + expected + QLatin1Char('\''));
    }
};

QTEST_GUILESS_MAIN(TestRedaction)
#include "tst_redaction.moc"
