#pragma once
/// \file Streaming JSON splitter: validates a document fed in chunks of any size and reports the
/// boundaries of the values near the root, so that a multi-GB trace can be cut into pieces small
/// enough for simdjson without ever holding the document whole.

#include <QtGlobal>
#include <string>
#include <string_view>
#include <vector>

namespace goblin {

/// Validates JSON with the grammar of Python's `json.loads` (RFC 8259 plus the literals `NaN`,
/// `Infinity` and `-Infinity`, which are counted so that callers can tell the two grammars apart)
/// and reports values at depth 0, 1 and (on request) 2 through a Sink.
///
/// The scanner is iterative: nesting costs one byte per level on a heap stack, capped at
/// maxDepthLimit(), so hostile input cannot exhaust the call stack. It keeps no pointer into the
/// data it was fed; callers may move or rewrite bytes between feed() calls. UTF-8 is not checked
/// here (validate it with simdjson::validate_utf8 on the raw bytes).
class JsonScanner
{
public:
    class Sink
    {
    public:
        virtual ~Sink() = default;
        /// A member key of the root object, escapes resolved. `line` is 1-based.
        virtual void rootKey(std::string_view key, qint64 offset, qint64 line) = 0;
        /// A value starts: depth 0 is the root, depth 1 a member or element of the root, depth 2 a
        /// member or element of a depth-1 container whose valueBegin returned true. `first` is the
        /// value's first byte ('{', '[', '"', '-', a digit or a literal's letter). For containers at
        /// depth 0 and 1 the return value asks for their children to be reported; otherwise ignored.
        virtual bool valueBegin(int depth, char first, qint64 offset, qint64 line) = 0;
        /// The value reported by the matching valueBegin ended just before `endOffset`.
        /// `sawBackslash` tells whether any string inside it contained an escape.
        virtual void valueEnd(int depth, qint64 endOffset, bool sawBackslash) = 0;
    };

    enum class Status { Ok, Error };

    explicit JsonScanner(Sink &sink);

    /// Scans `size` bytes whose first byte has the absolute offset `offset` (offsets must follow
    /// on from the previous call). Returns Error at the first syntax error; later calls do nothing.
    Status feed(const char *data, size_t size);
    /// Declares the end of input: a document that is incomplete or empty becomes an error.
    Status finish();

    bool failed() const { return m_failed; }
    bool complete() const { return m_state == State::Done && !m_failed; }
    /// Python-style message ("Expecting ',' delimiter") and where it applies.
    const std::string &errorMessage() const { return m_errorMessage; }
    qint64 errorOffset() const { return m_errorOffset; }
    qint64 errorLine() const { return m_errorLine; }
    qint64 errorColumn() const { return m_errorColumn; }  ///< 1-based, in bytes
    /// True when the error was the depth cap, not a syntax error.
    bool errorIsDepthLimit() const { return m_errorIsDepthLimit; }

    qint64 offset() const { return m_offset; }
    /// Where feed() stopped at an error (the byte it could not accept) and that byte's line; the
    /// error itself may be reported earlier (at a string's start, a '.', a backslash).
    qint64 stopOffset() const { return m_stopOffset; }
    qint64 stopLine() const { return m_stopLine; }
    qint64 line() const { return m_line; }
    /// Deepest nesting seen (containers open at once).
    size_t maxDepthSeen() const { return m_maxDepthSeen; }
    /// NaN / Infinity / -Infinity literals: valid for Python's json, invalid for RFC 8259.
    qint64 nonStandardLiterals() const { return m_nonStandardCount; }
    qint64 firstNonStandardLine() const { return m_firstNonStandardLine; }

    static constexpr size_t maxDepthLimit() { return 1u << 20; }

    // Scanning a document in byte ranges on several threads (a trace's "traceEvents" array cut
    // between two elements). A range is scanned by its own scanner that assumes where it starts;
    // the scanner of the range before checks that assumption when it reaches the same offset.

    /// Starts at `offset` as if `{"key": [value,` had been read, with the children of the root
    /// object and of that array reported: an element of a root member's array comes next. Lines
    /// count from 1 at `offset`. Call before the first feed(), which must start at `offset`.
    void startInsideRootArray(qint64 offset);
    /// True when the next value would be an element of an array that is a member of the root
    /// object, after a ',' and whitespace only: the state startInsideRootArray() assumes.
    bool atRootArrayElement() const;
    /// True when only ']' (after whitespace) can close that array: after one of its elements.
    bool afterRootArrayElement() const;
    /// Where the scanning that another scanner did on this one's behalf ended (see skipTo()).
    struct Resume {
        qint64 offset = 0;       ///< absolute offset of the next byte to scan
        qint64 line = 1;         ///< its line
        qint64 lineStart = 0;    ///< absolute offset of that line's first byte
        bool afterElement = false;  ///< an element just ended (']' or ',' next), else one comes next
        qint64 escapes = 0;      ///< backslashes in strings of the skipped bytes
        size_t maxDepth = 0;     ///< deepest nesting in them
    };
    /// Continues at r.offset as if the bytes up to it had been scanned here (by a scanner that
    /// began with startInsideRootArray() where this one is now, atRootArrayElement()).
    void skipTo(const Resume &r);
    /// Absolute offset of the first byte of the current line.
    qint64 lineStart() const { return m_lineStart; }
    qint64 escapes() const { return m_escapes; }

    /// Where the members named by setCapturedKeys() lie in an object just scanned.
    struct CapturedMembers {
        static constexpr int kMaxKeys = 8;
        static constexpr int kMaxNestedKeys = 8;
        quint8 have = 0;  ///< bit i: the member keys[i] was found; the last occurrence counts
        /// bit i: the member keys[i] occurred more than once (a duplicated key, which json.loads
        /// resolves to the last value, silently). Found on the way, without a table of keys.
        quint8 duplicated = 0;
        /// bit i: the member nestedKeys[i] was found in the object that is the value of
        /// keys[nestedParent], at its top level; the first occurrence counts.
        quint8 nestedHave = 0;
        /// bit i: nestedKeys[i] occurred more than once there (its later values are not located).
        quint8 nestedDuplicated = 0;
        /// That object was scanned for them, so a member not in nestedHave is not there. False
        /// when the value is no object or one of its keys has escapes (keys are compared raw).
        bool nestedScanned = false;
        /// Absolute offsets of the value's token: a string with its quotes, a number or literal, or
        /// only the '{' or '[' of a container (what simdjson's raw_json_token() shows, trimmed).
        qint64 begin[kMaxKeys] = {};
        qint64 end[kMaxKeys] = {};
        /// The nested members' values, set where nestedHave says so: as above, but a container
        /// whole, from its '{' or '[' to the byte after its end.
        qint64 nestedBegin[kMaxNestedKeys];
        qint64 nestedEnd[kMaxNestedKeys];
    };
    /// Member names (without escapes; at most CapturedMembers::kMaxKeys; the array must outlive the
    /// scanner) whose values the scanner locates in the objects it scans whole in one feed().
    void setCapturedKeys(const std::string_view *keys, int count);
    /// Member names (as above, at most kMaxNestedKeys) located one level further down, in the
    /// object that is the value of captured key `parent` (a Kineto event's "args"): the members
    /// every event's readers would otherwise search that object's bytes for again.
    void setNestedCapturedKeys(int parent, const std::string_view *keys, int count);
    /// During Sink::valueEnd() for an object scanned whole by the fast path: its members. Null for
    /// values scanned otherwise (across feed() calls, deeper than 64 levels, or with an error
    /// that the slow path then reports).
    const CapturedMembers *capturedMembers() const { return m_capturedValid ? &m_captured : nullptr; }

    /// Resolves the escapes of a JSON string body (without the quotes). Lone surrogates become
    /// their 3-byte (WTF-8) encoding, as Python keeps them in the str.
    static std::string unescape(std::string_view raw);

private:
    enum class State : quint8 {
        Root,          // before the root value
        Value,         // after ':' or ','-in-array
        ArrayFirst,    // after '['
        ObjectFirst,   // after '{'
        Key,           // after ','-in-object
        Colon,         // after a key
        AfterValue,    // after a value inside a container
        Done,          // after the root value: whitespace only
        String,
        Escape,
        Unicode,
        Number,
        Literal,
    };
    enum class NumberState : quint8 { Minus, Zero, Int, Dot, Frac, Exp, ExpSign, ExpDigits };

    const char *beginValue(char c, const char *p, const char *end, const char *data);
    const char *fastContainer(const char *p, const char *end, const char *data);
    void endValue(qint64 endOffset);
    void closeContainer(qint64 endOffset);
    void fail(const char *message, qint64 offset, qint64 line, qint64 column);
    void setMark(const char *p, const char *data);
    void failAt(const char *message, const char *p, const char *data);

    Sink &m_sink;
    State m_state = State::Root;
    NumberState m_numberState = NumberState::Int;
    bool m_stringIsKey = false;
    bool m_stringIsRootKey = false;
    bool m_failed = false;
    bool m_errorIsDepthLimit = false;
    bool m_fastPathEnabled = true;   // off until the next feed() once a value ran past the data
    bool m_capturedValid = false;    // m_captured describes the value being ended
    const std::string_view *m_captureKeys = nullptr;
    int m_captureKeyCount = 0;
    /// Key by first byte and length (mod 8): -1 none, -2 several. "ts" and "tid", "ph" and "pid"
    /// then take one compare each.
    static size_t keySlot(std::string_view key) { return size_t(static_cast<unsigned char>(key[0])) * 8 + (key.size() & 7); }
    qint8 m_captureIndex[256 * 8];
    int m_nestedParent = -1;
    const std::string_view *m_nestedKeys = nullptr;
    int m_nestedKeyCount = 0;
    qint8 m_nestedIndex[256 * 8];  // as m_captureIndex
    CapturedMembers m_captured;
    quint8 m_reportChildren = 0;     // bit d: children of the open depth-d container are reported
    int m_hexLeft = 0;
    const char *m_literal = nullptr;  // remaining bytes of a literal being matched
    qint64 m_literalStart = 0, m_literalLine = 0, m_literalColumn = 0;
    std::vector<quint8> m_stack;      // 1 = object, 0 = array
    size_t m_maxDepthSeen = 0;
    std::string m_key;                // raw bytes of a root key being read
    qint64 m_escapes = 0;             // backslashes seen in strings so far
    qint64 m_escapesAt[3] = {0, 0, 0};  // m_escapes when the reported value at depth d began

    qint64 m_base = 0;        // absolute offset of the data passed to the current feed()
    qint64 m_offset = 0;      // absolute offset of the next byte to scan
    qint64 m_line = 1;
    qint64 m_lineStart = 0;   // absolute offset of the current line's first byte
    qint64 m_stringStart = 0, m_stringLine = 0, m_stringColumn = 0;
    qint64 m_markOffset = 0, m_markLine = 0, m_markColumn = 0;  // last '\\', '.' or 'e': where Python complains

    qint64 m_nonStandardCount = 0;
    qint64 m_firstNonStandardLine = 0;

    std::string m_errorMessage;
    qint64 m_errorOffset = 0, m_errorLine = 0, m_errorColumn = 0;
    qint64 m_stopOffset = 0, m_stopLine = 0;
};

} // namespace goblin
