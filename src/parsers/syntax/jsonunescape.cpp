// JSON string escapes resolved as json.loads resolves them (lone surrogates kept, as Python keeps
// them in a str; here as their 3-byte encodings).
#include "syntax/jsonscanner.h"

#include "syntax/jsonlexing_p.h"

namespace goblin {

namespace {

inline int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

void appendUtf8(std::string &out, unsigned cp)
{
    if (cp < 0x80) {
        out.push_back(char(cp));
    } else if (cp < 0x800) {
        out.push_back(char(0xC0 | (cp >> 6)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(char(0xE0 | (cp >> 12)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (cp >> 18)));
        out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    }
}

} // namespace

std::string JsonScanner::unescape(std::string_view raw)
{
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\' || i + 1 >= raw.size()) {
            out.push_back(c);
            continue;
        }
        const char e = raw[++i];
        switch (e) {
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
            if (i + 4 >= raw.size()) {  // cannot happen after validation; keep the bytes
                out.append(raw.substr(i - 1));
                return out;
            }
            unsigned cp = 0;
            for (int k = 1; k <= 4; ++k)
                cp = cp * 16 + unsigned(hexValue(raw[i + k]));
            i += 4;
            // A high surrogate followed by a low one is one code point; Python joins them too.
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
                unsigned low = 0;
                bool hex = true;
                for (int k = 3; k <= 6; ++k) {
                    if (!isHex(raw[i + k])) {
                        hex = false;
                        break;
                    }
                    low = low * 16 + unsigned(hexValue(raw[i + k]));
                }
                if (hex && low >= 0xDC00 && low < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                }
            }
            appendUtf8(out, cp);
            break;
        }
        default: out.push_back(e); break;  // '"', '\\', '/'
        }
    }
    return out;
}

} // namespace goblin
