// Matrix Market I/O: exact round trips (plain and gzip), the expansion of
// symmetric, skew-symmetric, pattern and integer files, and one test per
// malformed input checking that the message names the file and the line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "binamg/sparse/matrix_market.hpp"
#include "support/random_matrix.hpp"

namespace binamg {
namespace {

using testing::RandomMatrixShape;

/// Each test writes its files into a fresh directory of its own, removed afterwards.
class MatrixMarketFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name)
      if (c == '/') c = '_';
    directory_ = std::filesystem::path(::testing::TempDir()) /
                 ("binamg_mm_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string path(const std::string& name) const { return (directory_ / name).string(); }

  /// Writes `text` byte for byte to a new file and returns its path.
  std::string file(const std::string& name, const std::string& text) const {
    const std::string where = path(name);
    std::ofstream(where, std::ios::binary) << text;
    return where;
  }

 private:
  std::filesystem::path directory_;
};

template <typename T>
class MatrixMarket : public MatrixMarketFiles {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MatrixMarket, Precisions);

/// Runs `read`, which must throw InvalidInput whose message starts with
/// "<path>:<line>: " and contains `fragment`.
template <typename Read>
void expect_error(Read read, const std::string& path, std::int64_t line,
                  const std::string& fragment) {
  try {
    read();
    ADD_FAILURE() << "expected InvalidInput from " << path;
  } catch (const InvalidInput& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(path + ":" + std::to_string(line) + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

template <typename T>
void expect_read_error(const std::string& path, std::int64_t line, const std::string& fragment) {
  expect_error([&] { read_matrix_market<T>(path); }, path, line, fragment);
}

/// Bitwise equality of two matrices: structure and every value's bits.
template <typename T>
void expect_identical(const CsrMatrix<T>& actual, const CsrMatrix<T>& expected) {
  ASSERT_EQ(actual.rows, expected.rows);
  ASSERT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.row_ptr, expected.row_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  ASSERT_EQ(actual.values.size(), expected.values.size());
  for (std::size_t k = 0; k < actual.values.size(); ++k)
    EXPECT_EQ(std::memcmp(&actual.values[k], &expected.values[k], sizeof(T)), 0)
        << "entry " << k << ": " << actual.values[k] << " vs " << expected.values[k];
}

template <typename T>
CsrMatrix<T> csr(index_t rows, index_t cols, std::vector<index_t> row_ptr,
                 std::vector<index_t> col_idx, std::vector<T> values) {
  CsrMatrix<T> matrix;
  matrix.rows = rows;
  matrix.cols = cols;
  matrix.row_ptr = std::move(row_ptr);
  matrix.col_idx = std::move(col_idx);
  matrix.values = std::move(values);
  return matrix;
}

// ---- round trips ---------------------------------------------------------

const RandomMatrixShape round_trip_shapes[] = {
    {50, 40, 4, 0.2, 1, false},  // rectangular, empty rows, one dense row
    {30, 30, 6, 0.0, 0, true},   // power-law row lengths
    {20, 70, 3, 0.5, 0, false},  // wide, half the rows empty
    {1, 1, 1, 0, 0, false},
};

TYPED_TEST(MatrixMarket, PlainRoundTripIsExact) {
  std::uint64_t seed = 7;
  for (const auto& shape : round_trip_shapes) {
    const auto A = testing::random_matrix<TypeParam>(shape, seed++);
    const std::string where = this->path("A" + std::to_string(seed) + ".mtx");
    write_matrix_market(where, A);
    expect_identical(read_matrix_market<TypeParam>(where), A);
  }
}

TYPED_TEST(MatrixMarket, GzipRoundTripIsExactAndCompressed) {
  std::uint64_t seed = 17;
  for (const auto& shape : round_trip_shapes) {
    const auto A = testing::random_matrix<TypeParam>(shape, seed++);
    const std::string where = this->path("A" + std::to_string(seed) + ".mtx.gz");
    write_matrix_market(where, A);
    unsigned char magic[2] = {0, 0};
    std::ifstream(where, std::ios::binary).read(reinterpret_cast<char*>(magic), 2);
    EXPECT_EQ(magic[0], 0x1f);  // the gzip signature
    EXPECT_EQ(magic[1], 0x8b);
    expect_identical(read_matrix_market<TypeParam>(where), A);
  }
}

TYPED_TEST(MatrixMarket, RoundTripKeepsExtremeValuesBitForBit) {
  using T = TypeParam;
  using limits = std::numeric_limits<T>;
  const std::vector<T> values = {limits::denorm_min(), limits::min(), limits::max(),
                                 limits::lowest(),     T(-0.0),       T(1) / T(3),
                                 limits::epsilon(),    T(-123456.789)};
  CsrMatrix<T> A = zero_matrix<T>(1, static_cast<index_t>(values.size()));
  for (std::size_t k = 0; k < values.size(); ++k) A.col_idx.push_back(static_cast<index_t>(k));
  A.values = values;
  A.row_ptr[1] = A.nnz();
  write_matrix_market(this->path("extreme.mtx"), A);
  expect_identical(read_matrix_market<T>(this->path("extreme.mtx")), A);
}

TYPED_TEST(MatrixMarket, EmptyMatrixRoundTrips) {
  for (const auto& A : {zero_matrix<TypeParam>(0, 0), zero_matrix<TypeParam>(3, 4)}) {
    write_matrix_market(this->path("empty.mtx"), A);
    expect_identical(read_matrix_market<TypeParam>(this->path("empty.mtx")), A);
  }
}

// ---- expansion of the file variants --------------------------------------

TYPED_TEST(MatrixMarket, SortsEntriesGivenInAnyOrder) {
  using T = TypeParam;
  const auto A = read_matrix_market<T>(this->file("order.mtx",
                                                  "%%MatrixMarket matrix coordinate real general\n"
                                                  "3 4 5\n"
                                                  "3 4 5\n"
                                                  "1 3 2\n"
                                                  "3 1 4\n"
                                                  "1 1 1\n"
                                                  "2 2 3\n"));
  validate(A, "order.mtx");
  expect_identical(A, csr<T>(3, 4, {0, 2, 3, 5}, {0, 2, 1, 0, 3}, {1, 2, 3, 4, 5}));
}

TYPED_TEST(MatrixMarket, SymmetricFileIsMirrored) {
  using T = TypeParam;
  const auto A =
      read_matrix_market<T>(this->file("sym.mtx",
                                       "%%MatrixMarket matrix coordinate real symmetric\n"
                                       "% lower triangle only\n"
                                       "3 3 4\n"
                                       "3 1 -1.5\n"
                                       "1 1 2\n"
                                       "2 2 3\n"
                                       "3 2 0.25\n"));
  validate(A, "sym.mtx");
  expect_identical(A,
                   csr<T>(3, 3, {0, 2, 4, 6}, {0, 2, 1, 2, 0, 1}, {2, -1.5, 3, 0.25, -1.5, 0.25}));
}

TYPED_TEST(MatrixMarket, SkewSymmetricFileIsMirroredWithSignFlip) {
  using T = TypeParam;
  const auto A =
      read_matrix_market<T>(this->file("skew.mtx",
                                       "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                       "3 3 2\n"
                                       "2 1 5\n"
                                       "3 2 -0.5\n"));
  validate(A, "skew.mtx");
  expect_identical(A, csr<T>(3, 3, {0, 1, 3, 4}, {1, 0, 2, 1}, {-5, 5, 0.5, -0.5}));
}

TYPED_TEST(MatrixMarket, PatternEntriesAreOne) {
  using T = TypeParam;
  const auto general =
      read_matrix_market<T>(this->file("pattern.mtx",
                                       "%%MatrixMarket matrix coordinate pattern general\n"
                                       "2 3 3\n"
                                       "2 3\n"
                                       "1 2\n"
                                       "2 1\n"));
  expect_identical(general, csr<T>(2, 3, {0, 1, 3}, {1, 0, 2}, {1, 1, 1}));
  const auto symmetric =
      read_matrix_market<T>(this->file("pattern_sym.mtx",
                                       "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                       "2 2 2\n"
                                       "1 1\n"
                                       "2 1\n"));
  expect_identical(symmetric, csr<T>(2, 2, {0, 2, 3}, {0, 1, 0}, {1, 1, 1}));
}

TYPED_TEST(MatrixMarket, IntegerFieldValuesAreRead) {
  using T = TypeParam;
  const auto A =
      read_matrix_market<T>(this->file("integer.mtx",
                                       "%%MatrixMarket matrix coordinate integer general\n"
                                       "2 2 3\n"
                                       "1 1 7\n"
                                       "2 2 -3\n"
                                       "1 2 +4\n"));
  expect_identical(A, csr<T>(2, 2, {0, 2, 3}, {0, 1, 1}, {7, 4, -3}));
}

TYPED_TEST(MatrixMarket, ToleratesCaseCommentsBlankLinesTabsAndCrlf) {
  using T = TypeParam;
  const auto A =
      read_matrix_market<T>(this->file("loose.mtx",
                                       "%%MatrixMarket MATRIX Coordinate REAL General\r\n"
                                       "%\r\n"
                                       "\r\n"
                                       "% size next\r\n"
                                       "  2\t2   2  \r\n"
                                       "\r\n"
                                       "\t1 2\t+2.5e0\r\n"
                                       "   \r\n"
                                       "2 1 -.5"));  // no final newline
  expect_identical(A, csr<T>(2, 2, {0, 1, 2}, {1, 0}, {2.5, -0.5}));
}

// ---- right-hand sides ----------------------------------------------------

TYPED_TEST(MatrixMarket, ReadsArrayVector) {
  using T = TypeParam;
  const auto b =
      read_matrix_market_vector<T>(this->file("b.mtx",
                                              "%%MatrixMarket matrix array real general\n"
                                              "% right-hand side\n"
                                              "3 1\n"
                                              "1.5\n"
                                              "-2\n"
                                              "0.25\n"));
  EXPECT_EQ(b, (std::vector<T>{1.5, -2, 0.25}));
}

TYPED_TEST(MatrixMarket, ReadsCoordinateVectorWithMissingEntriesZero) {
  using T = TypeParam;
  const auto b =
      read_matrix_market_vector<T>(this->file("b.mtx",
                                              "%%MatrixMarket matrix coordinate real general\n"
                                              "4 1 2\n"
                                              "3 1 2.5\n"
                                              "1 1 -1\n"));
  EXPECT_EQ(b, (std::vector<T>{-1, 0, 2.5, 0}));
}

TYPED_TEST(MatrixMarket, VectorWithTwoColumnsIsRejected) {
  const std::string where = this->file("b.mtx",
                                       "%%MatrixMarket matrix array real general\n"
                                       "% comment\n"
                                       "2 2\n"
                                       "1\n2\n3\n4\n");
  expect_error([&] { read_matrix_market_vector<TypeParam>(where); }, where, 3, "n x 1");
}

TYPED_TEST(MatrixMarket, VectorWithTooFewValuesIsRejected) {
  const std::string where = this->file("b.mtx",
                                       "%%MatrixMarket matrix array real general\n"
                                       "3 1\n"
                                       "1\n"
                                       "2\n");
  expect_error([&] { read_matrix_market_vector<TypeParam>(where); }, where, 4,
               "ends after 2 of the 3 values");
}

TYPED_TEST(MatrixMarket, VectorWithTooManyValuesIsRejected) {
  const std::string where = this->file("b.mtx",
                                       "%%MatrixMarket matrix array real general\n"
                                       "2 1\n"
                                       "1\n"
                                       "2\n"
                                       "3\n");
  expect_error([&] { read_matrix_market_vector<TypeParam>(where); }, where, 5,
               "more values than the 2");
}

TYPED_TEST(MatrixMarket, PatternVectorIsRejected) {
  const std::string where = this->file("b.mtx",
                                       "%%MatrixMarket matrix coordinate pattern general\n"
                                       "2 1 1\n"
                                       "1 1\n");
  expect_error([&] { read_matrix_market_vector<TypeParam>(where); }, where, 1, "real or integer");
}

// ---- malformed files: each names the file and the line --------------------

TYPED_TEST(MatrixMarket, MissingFileIsReported) {
  const std::string where = this->path("absent.mtx");
  try {
    read_matrix_market<TypeParam>(where);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find(where + ": cannot open"), std::string::npos)
        << error.what();
  }
}

TYPED_TEST(MatrixMarket, UnreadableFileIsReported) {
  // A directory opens but cannot be read.
  const std::string where = this->path("folder.mtx");
  std::filesystem::create_directory(where);
  expect_read_error<TypeParam>(where, 1, "cannot read");
}

TYPED_TEST(MatrixMarket, EmptyFileIsReported) {
  expect_read_error<TypeParam>(this->file("empty.mtx", ""), 1, "empty");
}

TYPED_TEST(MatrixMarket, MissingBannerIsReported) {
  expect_read_error<TypeParam>(this->file("nobanner.mtx", "3 3 1\n1 1 1\n"), 1,
                               "missing %%MatrixMarket banner");
}

TYPED_TEST(MatrixMarket, IncompleteBannerIsReported) {
  expect_read_error<TypeParam>(
      this->file("short.mtx", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n"), 1,
      "bad banner");
}

TYPED_TEST(MatrixMarket, ArrayFormatIsUnsupported) {
  expect_read_error<TypeParam>(
      this->file("dense.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n"), 1,
      "unsupported format 'array'");
}

TYPED_TEST(MatrixMarket, ComplexFieldIsUnsupported) {
  expect_read_error<TypeParam>(
      this->file("complex.mtx",
                 "%%MatrixMarket matrix coordinate complex general\n1 1 1\n"
                 "1 1 1 0\n"),
      1, "unsupported field 'complex'");
}

TYPED_TEST(MatrixMarket, RealHermitianFileIsReadAsSymmetric) {
  // Real entries make a Hermitian matrix symmetric: the lower triangle is mirrored.
  const auto A = read_matrix_market<TypeParam>(this->file(
      "herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n2 2 3\n1 1 2\n2 1 -1\n2 2 2\n"));
  EXPECT_EQ(A.row_ptr, (std::vector<index_t>{0, 2, 4}));
  EXPECT_EQ(A.col_idx, (std::vector<index_t>{0, 1, 0, 1}));
  EXPECT_EQ(A.values, (std::vector<TypeParam>{2, -1, -1, 2}));
}

TYPED_TEST(MatrixMarket, SizeLineWithMissingFieldIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 3\n"), 3,
      "bad size line");
}

TYPED_TEST(MatrixMarket, NonIntegerSizeIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real general\n3 3.5 1\n"), 2,
      "column count '3.5' is not an integer");
}

TYPED_TEST(MatrixMarket, NegativeDimensionIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real general\n-3 3 0\n"), 2,
      "negative dimension");
}

TYPED_TEST(MatrixMarket, ZeroDimensionIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real general\n0 3 0\n"), 2,
      "zero dimension");
}

TYPED_TEST(MatrixMarket, SizePastIndexLimitIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real general\n3000000000 3 0\n"), 2,
      "row count = 3000000000 does not fit in 32-bit indices");
}

TYPED_TEST(MatrixMarket, EntryCountPastIndexLimitIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx",
                 "%%MatrixMarket matrix coordinate real general\n100000 100000 3000000000\n"),
      2, "entry count = 3000000000 does not fit in 32-bit indices");
}

TYPED_TEST(MatrixMarket, EntryCountBeyondCapacityIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n"), 2,
      "stores at most 3");
}

TYPED_TEST(MatrixMarket, NonSquareSymmetricIsReported) {
  expect_read_error<TypeParam>(
      this->file("size.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n"), 2,
      "must be square");
}

TYPED_TEST(MatrixMarket, RowIndexOutOfRangeIsReported) {
  expect_read_error<TypeParam>(
      this->file("range.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"
                 "4 1 1\n"),
      4, "row index 4 is out of range [1, 3]");
}

TYPED_TEST(MatrixMarket, ColumnIndexOutOfRangeIsReported) {
  expect_read_error<TypeParam>(
      this->file("range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 0 1\n"), 3,
      "column index 0 is out of range [1, 3]");
}

TYPED_TEST(MatrixMarket, TooFewEntriesIsReported) {
  expect_read_error<TypeParam>(
      this->file("few.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n"
                 "2 2 1\n\n"),
      5, "ends after 2 of the 3 entries");
}

TYPED_TEST(MatrixMarket, TooManyEntriesIsReported) {
  expect_read_error<TypeParam>(
      this->file("many.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"
                 "2 2 1\n3 3 1\n"),
      5, "more entries than the 2");
}

TYPED_TEST(MatrixMarket, MissingValueIsReported) {
  expect_read_error<TypeParam>(
      this->file("fields.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n"), 3,
      "expected 3 fields");
}

TYPED_TEST(MatrixMarket, NonNumericValueIsReported) {
  expect_read_error<TypeParam>(
      this->file("value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0x\n"),
      3, "value '1.0x' is not a number");
}

TYPED_TEST(MatrixMarket, NaNValueIsReported) {
  expect_read_error<TypeParam>(
      this->file("nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 nan\n"), 3,
      "not finite");
}

TYPED_TEST(MatrixMarket, InfValueIsReported) {
  expect_read_error<TypeParam>(
      this->file("inf.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 -inf\n"), 3,
      "not finite");
}

TYPED_TEST(MatrixMarket, ValueTooLargeForPrecisionIsReported) {
  // Past the largest double (and so also the largest float).
  expect_read_error<TypeParam>(
      this->file("big.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 1e400\n"), 3,
      "out of range");
}

TYPED_TEST(MatrixMarket, ValueTooSmallForPrecisionIsReported) {
  // 1e-400 is below every subnormal: stored as 0, the entry would vanish
  // unannounced (a diagonal entry would then be reported as missing).
  expect_read_error<TypeParam>(
      this->file("tiny.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-400\n"),
      3, "value '1e-400' is too small for");
}

TYPED_TEST(MatrixMarket, NonIntegerInIntegerFileIsReported) {
  expect_read_error<TypeParam>(
      this->file("int.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n"),
      3, "integer value '1.5' is not an integer");
}

TYPED_TEST(MatrixMarket, DuplicateEntryNamesBothLines) {
  expect_read_error<TypeParam>(
      this->file("dup.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 3\n2 1 1\n"
                 "1 1 1\n2 1 2\n"),
      5, "duplicate entry (2, 1), first given on line 3");
}

TYPED_TEST(MatrixMarket, DuplicateInSymmetricFileNamesTheFileCoordinates) {
  // The mirrored copies also collide (in row 1); the message must still name
  // the entry as the file wrote it.
  expect_read_error<TypeParam>(
      this->file("dup.mtx",
                 "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n3 1 1\n"
                 "3 3 1\n3 1 2\n"),
      5, "duplicate entry (3, 1), first given on line 3");
}

TYPED_TEST(MatrixMarket, SymmetricEntryAboveDiagonalIsReported) {
  expect_read_error<TypeParam>(
      this->file("upper.mtx",
                 "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n"
                 "1 3 1\n"),
      4, "entry (1, 3) lies above the diagonal");
}

TYPED_TEST(MatrixMarket, SkewSymmetricDiagonalEntryIsReported) {
  expect_read_error<TypeParam>(
      this->file("skew.mtx",
                 "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n"
                 "2 2 1\n"),
      3, "on or above the diagonal");
}

TYPED_TEST(MatrixMarket, CommentAfterSizeLineIsReported) {
  expect_read_error<TypeParam>(
      this->file("comment.mtx",
                 "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n"
                 "% late comment\n2 2 1\n"),
      4, "comment after the size line");
}

TYPED_TEST(MatrixMarket, TruncatedGzipIsReported) {
  const auto A = testing::random_matrix<TypeParam>({400, 400, 8, 0, 0, false}, 99);
  const std::string where = this->path("cut.mtx.gz");
  write_matrix_market(where, A);
  std::filesystem::resize_file(where, std::filesystem::file_size(where) / 2);
  try {
    read_matrix_market<TypeParam>(where);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    // The line is wherever the stream breaks off; the file and the cause must show.
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(where + ":", 0), 0u) << message;
    EXPECT_NE(message.find("cannot read"), std::string::npos) << message;
  }
}

// ---- writing ---------------------------------------------------------------

TYPED_TEST(MatrixMarket, WritingToMissingDirectoryIsReported) {
  const std::string where = this->path("no/such/dir/A.mtx");
  try {
    write_matrix_market(where, identity_matrix<TypeParam>(2));
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& error) {
    EXPECT_NE(std::string(error.what()).find(where + ": cannot open for writing"),
              std::string::npos)
        << error.what();
  }
}

TYPED_TEST(MatrixMarket, WritingAnInvalidMatrixIsRejected) {
  auto A = identity_matrix<TypeParam>(3);
  A.col_idx[1] = 7;  // outside the 3 columns
  EXPECT_THROW(write_matrix_market(this->path("bad.mtx"), A), InvalidInput);
  EXPECT_FALSE(std::filesystem::exists(this->path("bad.mtx")));
}

// ---- Hostile input: bounded time and memory, clear messages ----

TYPED_TEST(MatrixMarket, NulBytesAreRejectedAtTheirLine) {
  // A binary file (here 1 MB of zeros) is no text file, rather than an "empty" one.
  expect_read_error<TypeParam>(this->file("zeros.mtx", std::string(1 << 20, '\0')), 1,
                               "NUL byte");
  expect_read_error<TypeParam>(
      this->file("late.mtx",
                 std::string("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 ") + '\0'),
      3, "NUL byte");
}

TYPED_TEST(MatrixMarket, EndlessDeviceIsRejectedWithoutReadingItAll) {
  // /dev/zero never ends: the first NUL byte stops the read.
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  expect_read_error<TypeParam>("/dev/zero", 1, "NUL byte");
}

TYPED_TEST(MatrixMarket, OverlongLineIsRejected) {
  expect_read_error<TypeParam>(
      this->file("long.mtx", "%%MatrixMarket matrix coordinate real general\n" +
                                 std::string((1 << 20) + 10, '1') + "\n"),
      2, "line longer than");
}

TYPED_TEST(MatrixMarket, CarriageReturnLineEndsAreRead) {
  // Old Mac line ends ("\r" alone) and Windows ones ("\r\n") end lines as "\n" does.
  for (const std::string end : {"\r", "\r\n"}) {
    const auto A = read_matrix_market<TypeParam>(
        this->file("cr.mtx", "%%MatrixMarket matrix coordinate real general" + end + "2 2 2" +
                                 end + "1 1 4" + end + "2 2 5" + end));
    EXPECT_EQ(A.values, (std::vector<TypeParam>{4, 5}));
  }
  // A malformed CR-only file names its line, not the whole file as one line.
  expect_read_error<TypeParam>(
      this->file("cr_bad.mtx", "%%MatrixMarket matrix coordinate real general\r2 2 2\r1 1 x\r"),
      3, "value 'x' is not a number");
}

TYPED_TEST(MatrixMarket, MessagesQuoteAtMostTheStartOfALine) {
  const std::string long_banner = "%%MatrixMarket " + std::string(500, 'x');
  try {
    read_matrix_market<TypeParam>(this->file("banner.mtx", long_banner + "\n"));
    FAIL() << "a bad banner was accepted";
  } catch (const InvalidInput& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("bad banner"), std::string::npos) << message;
    EXPECT_LT(message.size(), 300u) << "the message echoes the whole line";
  }
}

TYPED_TEST(MatrixMarket, IntegersPastTheRangeAreNamedSo) {
  expect_read_error<TypeParam>(
      this->file("huge.mtx",
                 "%%MatrixMarket matrix coordinate real general\n99999999999999999999 2 1\n"),
      2, "row count '99999999999999999999' is out of the 64-bit range");
}

TYPED_TEST(MatrixMarket, HugeDeclaredArrayIsRejectedBeforeAllocating) {
  // 10^9 values declared in a file of a few bytes: named by the size line,
  // without allocating them.
  const std::string where =
      this->file("array.mtx", "%%MatrixMarket matrix array real general\n1000000000 1\n1\n");
  expect_error([&] { read_matrix_market_vector<TypeParam>(where); }, where, 2,
               "the size line declares 1000000000 values, but the rest of the file");
}

TYPED_TEST(MatrixMarket, InfoReadsTheDeclarationOnly) {
  // The size line alone: the entries (here too few) are not read.
  const MatrixMarketInfo info = read_matrix_market_info(this->file(
      "info.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n7 7 9\n1 1 1\n"));
  EXPECT_EQ(info.rows, 7);
  EXPECT_EQ(info.cols, 7);
  EXPECT_EQ(info.stored_entries, 9);
  EXPECT_TRUE(info.coordinate);
  EXPECT_TRUE(info.symmetric);
}

}  // namespace
}  // namespace binamg
