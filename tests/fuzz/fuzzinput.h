#pragma once
// Shared by the libFuzzer targets. The parsers take paths (they stream files, mmap-free, with
// gzip detection by magic bytes), so each input is written to one temp file per process and
// the parser reads it from there.

#include <QString>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace goblin::fuzz {

class InputFile
{
public:
    InputFile()
    {
        const char *dir = std::getenv("TMPDIR");
        std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/goblin-fuzz-XXXXXX";
        m_fd = ::mkstemp(pattern.data());
        if (m_fd < 0) {
            std::perror("goblin fuzz: mkstemp");
            std::abort();
        }
        m_path = pattern;
        m_qpath = QString::fromStdString(m_path);
    }
    ~InputFile()
    {
        ::close(m_fd);
        ::unlink(m_path.c_str());
    }
    InputFile(const InputFile &) = delete;
    InputFile &operator=(const InputFile &) = delete;

    /// Replaces the file's content with the input. The parser opens the path itself; data
    /// written with write(2) is visible to that open at once.
    const QString &write(const uint8_t *data, size_t size)
    {
        if (::ftruncate(m_fd, 0) != 0 || ::lseek(m_fd, 0, SEEK_SET) != 0) {
            std::perror("goblin fuzz: truncate");
            std::abort();
        }
        size_t done = 0;
        while (done < size) {
            const ssize_t n = ::write(m_fd, data + done, size - done);
            if (n <= 0) {
                std::perror("goblin fuzz: write");
                std::abort();
            }
            done += size_t(n);
        }
        return m_qpath;
    }

private:
    int m_fd = -1;
    std::string m_path;
    QString m_qpath;
};

/// One temp file for the whole process (libFuzzer runs inputs one after another in a thread).
inline InputFile &inputFile()
{
    static InputFile file;
    return file;
}

/// Never cancels, so the parser's progress path runs as in the application.
inline bool keepGoing(qint64 /*bytesDone*/)
{
    return true;
}

} // namespace goblin::fuzz
