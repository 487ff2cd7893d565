#include "binamg/sparse/matrix_market.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <system_error>

#include "binamg/core/memory.hpp"

namespace binamg {
namespace {

/// "<path>:<line>: ", the prefix of every message about a place in a file.
std::string where(const std::string& path, std::int64_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

/// A line of a file, turned into its message prefix only when an error is
/// thrown, so the per-entry loop builds no strings.
struct Place {
  const std::string& path;
  std::int64_t line;
};
std::string operator+(const Place& place, const std::string& text) {
  return where(place.path, place.line) + text;
}

// Lines through zlib, which passes plain files through unchanged, so one reader
// serves .mtx and .mtx.gz. A line ends at "\n", "\r\n" or a lone "\r".
// Untrusted input stays bounded: a NUL byte (a binary file, /dev/zero) and a
// line longer than kMaxLine are errors, and bytes_left() bounds what the rest
// of the file can hold, so a size line can be checked before anything is
// allocated for it.
class LineReader {
 public:
  static constexpr std::size_t kMaxLine = std::size_t(1) << 20;
  // deflate cannot expand a stream by more than this factor (zlib's tech notes: 1032:1).
  static constexpr std::uint64_t kMaxInflation = 1032;

  explicit LineReader(const std::string& path) : path_(path) {
    struct stat status {};
    regular_ = stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
    file_bytes_ = regular_ ? std::uint64_t(status.st_size) : 0;
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr)
      throw InvalidInput(path + ": cannot open for reading (" +
                         (errno != 0 ? std::strerror(errno) : "out of memory") + ")");
    gzbuffer(file_, 1 << 17);
  }
  ~LineReader() { gzclose(file_); }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its line end; false at the end of the file.
  bool next(std::string& line) {
    line.clear();
    bool any = false;
    for (;;) {
      if (at_ == size_ && !fill()) {
        if (!any) return false;
        break;  // a last line without a line end
      }
      any = true;
      const char* begin = buffer_ + at_;
      const char* end = buffer_ + size_;
      const char* stop = begin;
      while (stop != end && *stop != '\n' && *stop != '\r' && *stop != '\0') ++stop;
      line.append(begin, stop);
      at_ += std::size_t(stop - begin);
      if (line.size() > kMaxLine)
        throw InvalidInput(where(path_, line_ + 1) + "line longer than " +
                           std::to_string(kMaxLine) + " bytes (not a Matrix Market file?)");
      if (stop == end) continue;
      if (*stop == '\0')
        throw InvalidInput(where(path_, line_ + 1) +
                           "holds a NUL byte (a binary file, not a text Matrix Market file)");
      ++at_;
      if (*stop == '\r') {  // a "\n" right after belongs to this line end
        if (at_ < size_)
          at_ += buffer_[at_] == '\n' ? 1 : 0;
        else
          skip_newline_ = true;
      }
      break;
    }
    ++line_;
    return true;
  }

  std::int64_t line() const { return line_; }
  bool compressed() const { return gzdirect(file_) == 0; }

  /// A bound of the bytes still to come (exact for a plain file, deflate's
  /// limit for gzip), or -1 where the input is no regular file.
  std::int64_t bytes_left() const {
    if (!regular_) return -1;
    const std::uint64_t total = gzdirect(file_) ? file_bytes_ : file_bytes_ * kMaxInflation;
    const std::uint64_t position = consumed_ - (size_ - at_);  // bytes handed out so far
    return total > position ? std::int64_t(total - position) : 0;
  }

 private:
  // Reads the next chunk (dropping a "\n" that ends a "\r\n"); false at the end.
  bool fill() {
    for (;;) {
      const int got = gzread(file_, buffer_, sizeof buffer_);
      if (got < 0) throw_failure();
      if (got == 0) {
        throw_if_failed();
        return false;
      }
      at_ = 0;
      size_ = std::size_t(got);
      consumed_ += std::uint64_t(got);
      if (skip_newline_ && buffer_[0] == '\n') at_ = 1;
      skip_newline_ = false;
      if (at_ < size_) return true;
    }
  }

  // gzread returns 0 both at a clean end and on failure; only gzerror tells
  // them apart (a truncated gzip stream reports Z_BUF_ERROR here).
  void throw_if_failed() {
    int status = Z_OK;
    gzerror(file_, &status);
    if (status != Z_OK) throw_failure();
  }
  [[noreturn]] void throw_failure() {
    int status = Z_OK;
    const char* message = gzerror(file_, &status);
    const std::string reason = status == Z_ERRNO ? std::strerror(errno) : message;
    throw InvalidInput(where(path_, line_ + 1) + "cannot read the file (" + reason + ")");
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::int64_t line_ = 0;
  bool regular_ = false;
  std::uint64_t file_bytes_ = 0, consumed_ = 0;
  char buffer_[1 << 16];
  std::size_t at_ = 0, size_ = 0;
  bool skip_newline_ = false;
};

/// Whitespace-separated fields of one line; count() goes past the stored ones
/// so "too many fields" is still detected.
class Fields {
 public:
  static constexpr std::size_t capacity = 8;
  explicit Fields(std::string_view line) {
    std::size_t pos = 0;
    for (;;) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      if (pos == line.size()) break;
      const std::size_t end = std::min(line.find_first_of(" \t", pos), line.size());
      if (count_ < capacity) fields_[count_] = line.substr(pos, end - pos);
      ++count_;
      pos = end;
    }
  }
  std::size_t count() const { return count_; }
  std::string_view operator[](std::size_t i) const { return fields_[i]; }

 private:
  std::string_view fields_[capacity];
  std::size_t count_ = 0;
};

std::string lower(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return result;
}

/// from_chars rejects a leading '+', which C's scanf (and so many writers) allow.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  return text;
}

/// At most the first 60 characters of `text`, quoted, for a message.
std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 60;
  return "'" + std::string(text.substr(0, kShown)) + (text.size() > kShown ? "...'" : "'");
}

std::int64_t parse_integer(std::string_view text, const Place& context, const std::string& what) {
  const std::string_view digits = without_plus(text);
  std::int64_t value = 0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (status == std::errc::result_out_of_range && end == digits.data() + digits.size())
    throw InvalidInput(context + what + " " + quoted(text) + " is out of the 64-bit range");
  if (status != std::errc() || end != digits.data() + digits.size())
    throw InvalidInput(context + what + " " + quoted(text) + " is not an integer");
  return value;
}

/// Correctly rounded to T. A value too small for T becomes zero or subnormal
/// (as strtod would do); too large, NaN or Inf is an error.
template <typename T>
T parse_real(std::string_view text, const Place& context) {
  const std::string_view digits = without_plus(text);
  const char* first = digits.data();
  const char* last = first + digits.size();
  T value{};
  auto [end, status] = std::from_chars(first, last, value);
  const std::string type = std::is_same_v<T, float> ? "float" : "double";
  if (status == std::errc::result_out_of_range && end == last) {
    // Out of T's range: long double's wider exponent tells underflow from overflow.
    long double wide = 0;
    const auto wide_result = std::from_chars(first, last, wide);
    if (wide_result.ec == std::errc() &&
        std::abs(wide) <= static_cast<long double>(std::numeric_limits<T>::max())) {
      value = static_cast<T>(wide);
      status = std::errc();
      // Stored as zero, the entry would vanish from the matrix unannounced.
      if (value == T(0) && wide != 0)
        throw InvalidInput(context + "value " + quoted(text) + " is too small for " + type +
                           ": it would be stored as 0" +
                           (std::is_same_v<T, float> ? " (use double precision)" : ""));
    }
  }
  if (status == std::errc::result_out_of_range && end == last)
    throw InvalidInput(context + "value " + quoted(text) + " is out of range for " + type);
  if (status != std::errc() || end != last)
    throw InvalidInput(context + "value " + quoted(text) + " is not a number");
  if (!std::isfinite(value))
    throw InvalidInput(context + "value " + quoted(text) + " is not finite (NaN or Inf)");
  return value;
}

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Header {
  Format format = Format::coordinate;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  std::string symmetry_name;
};

/// Parses line 1: "%%MatrixMarket matrix <format> <field> <symmetry>" (keywords
/// are case-insensitive in the NIST specification).
Header read_banner(LineReader& reader, const std::string& path) {
  std::string line;
  const Place context{path, 1};
  if (!reader.next(line))
    throw InvalidInput(context + "the file is empty (expected a %%MatrixMarket banner)");
  const Fields fields(line);
  if (fields.count() == 0 || lower(fields[0]) != "%%matrixmarket")
    throw InvalidInput(context + "missing %%MatrixMarket banner on the first line");
  if (fields.count() != 5)
    throw InvalidInput(context + "bad banner " + quoted(line) +
                       " (expected %%MatrixMarket matrix <format> <field> <symmetry>)");
  if (lower(fields[1]) != "matrix")
    throw InvalidInput(context + "unsupported object '" + std::string(fields[1]) +
                       "' (only 'matrix' is supported)");
  Header header;
  const std::string format = lower(fields[2]);
  if (format == "coordinate")
    header.format = Format::coordinate;
  else if (format == "array")
    header.format = Format::array;
  else
    throw InvalidInput(context + "unknown format '" + format + "' (expected coordinate)");

  const std::string field = lower(fields[3]);
  if (field == "real")
    header.field = Field::real;
  else if (field == "integer")
    header.field = Field::integer;
  else if (field == "pattern")
    header.field = Field::pattern;
  else if (field == "complex")
    throw InvalidInput(context +
                       "unsupported field 'complex' (complex matrices are not supported)");
  else
    throw InvalidInput(context + "unknown field '" + field +
                       "' (expected real, integer or pattern)");

  header.symmetry_name = lower(fields[4]);
  if (header.symmetry_name == "general")
    header.symmetry = Symmetry::general;
  else if (header.symmetry_name == "symmetric")
    header.symmetry = Symmetry::symmetric;
  else if (header.symmetry_name == "skew-symmetric")
    header.symmetry = Symmetry::skew_symmetric;
  else if (header.symmetry_name == "hermitian")  // real entries: Hermitian is symmetric
    header.symmetry = Symmetry::symmetric;
  else
    throw InvalidInput(context + "unknown symmetry '" + header.symmetry_name +
                       "' (expected general, symmetric or skew-symmetric)");

  if (header.field == Field::pattern &&
      (header.format == Format::array || header.symmetry == Symmetry::skew_symmetric))
    throw InvalidInput(context + "a pattern file must be coordinate and general or symmetric");
  return header;
}

/// A line that holds data: not blank, and a comment only where comments are allowed.
bool next_data_line(LineReader& reader, const std::string& path, bool comments_allowed,
                    std::string& line) {
  while (reader.next(line)) {
    if (Fields(line).count() == 0) continue;
    if (line.find_first_not_of(" \t") == line.find('%')) {
      if (comments_allowed) continue;
      throw InvalidInput(where(path, reader.line()) +
                         "comment after the size line (comments may only precede it)");
    }
    return true;
  }
  return false;
}

struct Size {
  index_t rows = 0;
  index_t cols = 0;
  index_t entries = 0;  // lines of data that follow
  std::int64_t line = 0;
};

/// The size line: "rows cols nnz" for coordinate, "rows cols" for array.
Size read_size_line(LineReader& reader, const std::string& path, const Header& header) {
  std::string line;
  if (!next_data_line(reader, path, true, line))
    throw InvalidInput(where(path, reader.line()) + "the file ends before the size line");
  Size size;
  size.line = reader.line();
  const Place context{path, size.line};
  const Fields fields(line);
  const bool coordinate = header.format == Format::coordinate;
  if (fields.count() != (coordinate ? 3u : 2u))
    throw InvalidInput(context + "bad size line " + quoted(line) + " (expected " +
                       (coordinate ? "'rows columns entries'" : "'rows columns'") + ")");
  const std::int64_t rows = parse_integer(fields[0], context, "row count");
  const std::int64_t cols = parse_integer(fields[1], context, "column count");
  if (rows < 0 || cols < 0)
    throw InvalidInput(context + "negative dimension in size line " + quoted(line));
  if ((rows == 0) != (cols == 0))
    throw InvalidInput(context + "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " matrix has a zero dimension (only an empty 0 x 0 matrix may)");
  size.rows = checked_index(rows, context + "row count");
  size.cols = checked_index(cols, context + "column count");
  if (header.symmetry != Symmetry::general && rows != cols)
    throw InvalidInput(context + "a " + header.symmetry_name + " matrix must be square, got " +
                       std::to_string(rows) + " x " + std::to_string(cols));

  // rows*cols < 2^62: no overflow. The capacity counts what the file may store.
  std::int64_t capacity = rows * cols;
  if (header.symmetry == Symmetry::symmetric) capacity = rows * (rows + 1) / 2;
  if (header.symmetry == Symmetry::skew_symmetric) capacity = rows * (rows - 1) / 2;
  if (coordinate) {
    const std::int64_t entries = parse_integer(fields[2], context, "entry count");
    if (entries < 0) throw InvalidInput(context + "negative entry count in size line");
    if (entries > capacity)
      throw InvalidInput(context + "the size line declares " + std::to_string(entries) +
                         " entries but a " + header.symmetry_name + " " + std::to_string(rows) +
                         " x " + std::to_string(cols) + " matrix stores at most " +
                         std::to_string(capacity));
    size.entries = checked_index(entries, context + "entry count");
  } else {
    size.entries = checked_index(capacity, context + "array entry count");
  }
  // An array's values are allocated as declared; each takes a line of at
  // least "v\n", so the rest of the file bounds their count before a large
  // allocation (the last line may lack its line end; a small array is read
  // and a short one named at the line where it ends). Coordinate entries are
  // stored as they are read, so their declared count allocates nothing.
  constexpr index_t kSmallArray = index_t(1) << 16;
  const std::int64_t left = reader.bytes_left();
  if (!coordinate && size.entries > kSmallArray && left >= 0 && size.entries > (left + 1) / 2)
    throw InvalidInput(context + "the size line declares " + std::to_string(size.entries) +
                       " values, but the rest of the file (" +
                       (reader.compressed() ? "at most " + format_bytes(left) + " decompressed"
                                            : format_bytes(left)) +
                       ") holds at most " + std::to_string((left + 1) / 2));
  return size;
}

template <typename T>
struct Entry {
  index_t row;  // 0-based
  index_t col;
  T value;
  std::int64_t line;  // where the file gave it, for messages
};

/// The entries of a coordinate file as stored (before mirroring), checked one
/// line at a time: field count, index ranges, values, the stored triangle.
template <typename T>
std::vector<Entry<T>> read_coordinate_entries(LineReader& reader, const std::string& path,
                                              const Header& header, const Size& size) {
  const std::size_t wanted_fields = header.field == Field::pattern ? 2 : 3;
  const std::string declared = std::to_string(size.entries) + " entries the size line (line " +
                               std::to_string(size.line) + ") declares";
  std::vector<Entry<T>> entries;
  // The size line is untrusted: reserve at most a modest amount up front.
  entries.reserve(std::min<std::size_t>(size.entries, std::size_t(1) << 20));
  std::string line;
  while (next_data_line(reader, path, false, line)) {
    const Place context{path, reader.line()};
    if (entries.size() == static_cast<std::size_t>(size.entries))
      throw InvalidInput(context + "more entries than the " + declared);
    const Fields fields(line);
    if (fields.count() != wanted_fields)
      throw InvalidInput(context + "expected " + std::to_string(wanted_fields) + " fields (" +
                         (wanted_fields == 2 ? "row column" : "row column value") + "), found " +
                         std::to_string(fields.count()));
    const std::int64_t row = parse_integer(fields[0], context, "row index");
    const std::int64_t col = parse_integer(fields[1], context, "column index");
    if (row < 1 || row > size.rows)
      throw InvalidInput(context + "row index " + std::to_string(row) + " is out of range [1, " +
                         std::to_string(size.rows) + "]");
    if (col < 1 || col > size.cols)
      throw InvalidInput(context + "column index " + std::to_string(col) + " is out of range [1, " +
                         std::to_string(size.cols) + "]");
    const auto position = [&] {
      return "(" + std::to_string(row) + ", " + std::to_string(col) + ")";
    };
    if (header.symmetry == Symmetry::symmetric && col > row)
      throw InvalidInput(context + "entry " + position() +
                         " lies above the diagonal of a symmetric file (only the lower "
                         "triangle may be stored)");
    if (header.symmetry == Symmetry::skew_symmetric && col >= row)
      throw InvalidInput(context + "entry " + position() +
                         " lies on or above the diagonal of a skew-symmetric file (only the "
                         "strict lower triangle may be stored)");
    T value = T(1);
    if (header.field == Field::real) value = parse_real<T>(fields[2], context);
    if (header.field == Field::integer)
      value = static_cast<T>(parse_integer(fields[2], context, "integer value"));
    entries.push_back(
        {static_cast<index_t>(row - 1), static_cast<index_t>(col - 1), value, reader.line()});
  }
  if (entries.size() < static_cast<std::size_t>(size.entries))
    throw InvalidInput(where(path, reader.line()) + "the file ends after " +
                       std::to_string(entries.size()) + " of the " + declared);
  return entries;
}

/// CSR from the stored entries: mirrors the symmetric ones, counting-sorts by
/// row (file order kept), sorts each row by column and rejects duplicates.
template <typename T>
CsrMatrix<T> assemble(const std::vector<Entry<T>>& stored, const std::string& path,
                      const Header& header, const Size& size) {
  const bool mirror = header.symmetry != Symmetry::general;
  const T mirror_sign = header.symmetry == Symmetry::skew_symmetric ? T(-1) : T(1);
  // Row offsets and cursors, the entries placed (mirrored: twice), the CSR arrays.
  const std::uint64_t rows = std::uint64_t(size.rows) + 1;
  const std::uint64_t placed_entries = stored.size() * (mirror ? 2 : 1);
  require_host_memory(rows * (2 * sizeof(std::int64_t) + sizeof(index_t)) +
                          placed_entries * (sizeof(Entry<T>) + sizeof(index_t) + sizeof(T)),
                      where(path, size.line) + "a " + std::to_string(size.rows) + " x " +
                          std::to_string(size.cols) + " matrix");
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(size.rows) + 1, 0);
  for (const Entry<T>& e : stored) {
    ++offsets[e.row + 1];
    if (mirror && e.row != e.col) ++offsets[e.col + 1];
  }
  for (index_t row = 0; row < size.rows; ++row) offsets[row + 1] += offsets[row];
  checked_index(offsets.back(), path + ": entries after mirroring the symmetric triangle");

  std::vector<Entry<T>> placed(static_cast<std::size_t>(offsets.back()));
  std::vector<std::int64_t> cursor(offsets.begin(), offsets.end() - 1);
  for (const Entry<T>& e : stored) {
    placed[cursor[e.row]++] = e;
    if (mirror && e.row != e.col)
      placed[cursor[e.col]++] = {e.col, e.row, mirror_sign * e.value, e.line};
  }

  CsrMatrix<T> matrix = zero_matrix<T>(size.rows, size.cols);
  matrix.col_idx.resize(placed.size());
  matrix.values.resize(placed.size());
  for (index_t row = 0; row < size.rows; ++row) {
    const auto begin = placed.begin() + offsets[row];
    const auto end = placed.begin() + offsets[row + 1];
    std::sort(begin, end, [](const Entry<T>& a, const Entry<T>& b) {
      return a.col != b.col ? a.col < b.col : a.line < b.line;
    });
    for (auto it = begin; it != end; ++it) {
      if (it != begin && it->col == (it - 1)->col) {
        // Report in the file's coordinates: a mirrored entry sits in the upper triangle.
        const index_t file_row = mirror ? std::max(it->row, it->col) : it->row;
        const index_t file_col = mirror ? std::min(it->row, it->col) : it->col;
        throw InvalidInput(where(path, it->line) + "duplicate entry (" +
                           std::to_string(file_row + 1) + ", " + std::to_string(file_col + 1) +
                           "), first given on line " + std::to_string((it - 1)->line));
      }
      const std::size_t k = static_cast<std::size_t>(it - placed.begin());
      matrix.col_idx[k] = it->col;
      matrix.values[k] = it->value;
    }
    matrix.row_ptr[row + 1] = static_cast<index_t>(offsets[row + 1]);
  }
  // Valid by construction (indices range-checked, rows sorted and duplicate-free,
  // values finite), which the tests confirm with validate().
  return matrix;
}

/// A gzFile opened for writing whose close is checked (it flushes the stream).
class GzWriter {
 public:
  GzWriter(const std::string& path, bool compress) : path_(path) {
    errno = 0;
    // "T" writes the bytes through without gzip framing.
    file_ = gzopen(path.c_str(), compress ? "wb" : "wbT");
    if (file_ == nullptr)
      throw InvalidInput(path + ": cannot open for writing (" +
                         (errno != 0 ? std::strerror(errno) : "out of memory") + ")");
  }
  ~GzWriter() {
    if (file_ != nullptr) gzclose(file_);
  }
  GzWriter(const GzWriter&) = delete;
  GzWriter& operator=(const GzWriter&) = delete;

  void write(const std::string& text) {
    if (text.empty()) return;
    if (gzwrite(file_, text.data(), static_cast<unsigned>(text.size())) !=
        static_cast<int>(text.size()))
      fail();
  }
  void close() {
    const int status = gzclose(file_);
    file_ = nullptr;
    if (status != Z_OK)
      throw InvalidInput(path_ + ": cannot finish writing the file (zlib status " +
                         std::to_string(status) + ")");
  }

 private:
  [[noreturn]] void fail() {
    int status = Z_OK;
    const char* message = gzerror(file_, &status);
    throw InvalidInput(path_ + ": cannot write the file (" +
                       (status == Z_ERRNO ? std::strerror(errno) : message) + ")");
  }

  std::string path_;
  gzFile file_ = nullptr;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

MatrixMarketInfo read_matrix_market_info(const std::string& path) {
  LineReader reader(path);
  const Header header = read_banner(reader, path);
  const Size size = read_size_line(reader, path, header);
  MatrixMarketInfo info;
  info.rows = size.rows;
  info.cols = size.cols;
  info.stored_entries = size.entries;
  info.coordinate = header.format == Format::coordinate;
  info.symmetric = header.symmetry != Symmetry::general;
  return info;
}

template <typename T>
CsrMatrix<T> read_matrix_market(const std::string& path) {
  LineReader reader(path);
  const Header header = read_banner(reader, path);
  if (header.format == Format::array)
    throw InvalidInput(where(path, 1) +
                       "unsupported format 'array' (dense); sparse matrices must be coordinate");
  const Size size = read_size_line(reader, path, header);
  return assemble(read_coordinate_entries<T>(reader, path, header, size), path, header, size);
}

namespace {

// The right-hand-side readers' shared body; `single_column` asks for n x 1.
template <typename T>
DenseBlock<T> read_dense(const std::string& path, bool single_column) {
  LineReader reader(path);
  const Header header = read_banner(reader, path);
  if (header.field == Field::pattern || header.symmetry != Symmetry::general)
    throw InvalidInput(where(path, 1) + "a vector file must be real or integer and general");
  const Size size = read_size_line(reader, path, header);
  if (single_column && size.cols != 1)
    throw InvalidInput(where(path, size.line) + "a vector must be n x 1, got " +
                       std::to_string(size.rows) + " x " + std::to_string(size.cols));
  const index_t entries = checked_index(std::int64_t(size.rows) * size.cols,
                                        where(path, size.line) + "rows x columns");

  require_host_memory(std::uint64_t(entries) * sizeof(T),
                      where(path, size.line) + "a " + std::to_string(size.rows) + " x " +
                          std::to_string(size.cols) + " block of right-hand sides");
  DenseBlock<T> block;
  block.rows = size.rows;
  block.cols = size.cols;
  block.values.assign(entries, T(0));
  auto at = [&](index_t row, index_t col) -> T& {
    return block.values[std::size_t(row) * size.cols + col];
  };
  if (header.format == Format::coordinate) {
    const CsrMatrix<T> sparse =
        assemble(read_coordinate_entries<T>(reader, path, header, size), path, header, size);
    for (index_t row = 0; row < sparse.rows; ++row)
      for (index_t e = sparse.row_ptr[row]; e < sparse.row_ptr[row + 1]; ++e)
        at(row, sparse.col_idx[e]) = sparse.values[e];
    return block;
  }
  // Array: one value per line, column after column.
  std::string line;
  index_t count = 0;
  while (next_data_line(reader, path, false, line)) {
    const Place context{path, reader.line()};
    if (count == entries)
      throw InvalidInput(context + "more values than the " + std::to_string(entries) +
                         " the size line (line " + std::to_string(size.line) + ") declares");
    const Fields fields(line);
    if (fields.count() != 1)
      throw InvalidInput(context + "expected one value per line, found " +
                         std::to_string(fields.count()) + " fields");
    at(count % size.rows, count / size.rows) =
        header.field == Field::integer
            ? static_cast<T>(parse_integer(fields[0], context, "integer value"))
            : parse_real<T>(fields[0], context);
    ++count;
  }
  if (count < entries)
    throw InvalidInput(where(path, reader.line()) + "the file ends after " + std::to_string(count) +
                       " of the " + std::to_string(entries) + " values the size line (line " +
                       std::to_string(size.line) + ") declares");
  return block;
}

}  // namespace

template <typename T>
std::vector<T> read_matrix_market_vector(const std::string& path) {
  return read_dense<T>(path, true).values;
}

template <typename T>
DenseBlock<T> read_matrix_market_block(const std::string& path) {
  return read_dense<T>(path, false);
}

template <typename T>
void write_matrix_market(const std::string& path, const CsrMatrix<T>& matrix) {
  validate(matrix, "write_matrix_market(" + path + ")");
  GzWriter file(path, ends_with(path, ".gz"));
  std::string text = "%%MatrixMarket matrix coordinate real general\n" +
                     std::to_string(matrix.rows) + " " + std::to_string(matrix.cols) + " " +
                     std::to_string(matrix.nnz()) + "\n";
  constexpr std::size_t flush_at = std::size_t(1) << 16;
  char number[64];
  for (index_t row = 0; row < matrix.rows; ++row)
    for (index_t k = matrix.row_ptr[row]; k < matrix.row_ptr[row + 1]; ++k) {
      // max_digits10 significant digits always identify the value exactly.
      const auto result =
          std::to_chars(number, number + sizeof number, matrix.values[k],
                        std::chars_format::general, std::numeric_limits<T>::max_digits10);
      text += std::to_string(row + 1);
      text += ' ';
      text += std::to_string(matrix.col_idx[k] + 1);
      text += ' ';
      text.append(number, result.ptr);
      text += '\n';
      if (text.size() >= flush_at) {
        file.write(text);
        text.clear();
      }
    }
  file.write(text);
  file.close();
}

#define BINAMG_INSTANTIATE(T)                                               \
  template CsrMatrix<T> read_matrix_market<T>(const std::string&);          \
  template std::vector<T> read_matrix_market_vector<T>(const std::string&); \
  template DenseBlock<T> read_matrix_market_block<T>(const std::string&);   \
  template void write_matrix_market<T>(const std::string&, const CsrMatrix<T>&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
