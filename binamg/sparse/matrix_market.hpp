#pragma once
// Matrix Market (NIST .mtx) files: sparse matrices in, right-hand sides in,
// sparse matrices out. Files ending in ".gz" are written gzipped; reading
// detects gzip by content, so compressed and plain files both read.
//
// Every error is InvalidInput with a message "<path>:<line>: <problem>" that
// names the file and the 1-based line where the problem shows.
#include <string>
#include <vector>

#include "binamg/sparse/csr.hpp"

namespace binamg {

/// What a file's banner and size line declare, read without its entries, so
/// that a caller can check the sizes before reading the whole file. The checks
/// of the banner and the size line are those of the readers below, the bound
/// of the entries by the file's size included.
struct MatrixMarketInfo {
  index_t rows = 0, cols = 0;
  index_t stored_entries = 0;  // lines of entries (coordinate) or values (array)
  bool coordinate = true;      // else array
  bool symmetric = false;      // symmetric, skew-symmetric or (real) Hermitian: mirrored on reading
};
MatrixMarketInfo read_matrix_market_info(const std::string& path);

/// Reads a "matrix coordinate" file with field real, integer or pattern
/// (pattern entries become 1) and symmetry general, symmetric (off-diagonal
/// entries mirrored) or skew-symmetric (mirrored with the sign flipped).
/// Comment lines (%) may appear between the banner and the size line, blank
/// lines anywhere after the banner. Entries may come in any order; the result
/// has sorted rows and passes validate().
///
/// A Hermitian file with real entries is read as symmetric.
///
/// Rejected, with the file and line named: a missing or malformed banner; the
/// array format and complex files (named as unsupported); a NUL byte or a line
/// longer than 1 MiB (not a text file); a bad size line; a size line declaring
/// more entries than the rest of the file can hold, or a matrix larger than the
/// host memory available (both before anything is allocated); negative dimensions, or one dimension zero (a 0 x 0 matrix reads as an
/// empty matrix, which AMG callers reject later); sizes or nnz past 2^31-1; an
/// index out of range; too few or too many entries; a malformed, NaN or
/// infinite value, or one so small that T would store it as zero; duplicate entries (both lines named); an entry above the
/// diagonal of a symmetric file (on or above for skew-symmetric); a file that
/// cannot be opened or read. Time O(nnz log(max row length)), memory O(nnz).
template <typename T>
CsrMatrix<T> read_matrix_market(const std::string& path);

/// Reads a right-hand side: "matrix array real|integer general" with n x 1
/// entries, or "matrix coordinate real|integer general" n x 1 (entries not
/// listed are zero). Errors as for read_matrix_market.
template <typename T>
std::vector<T> read_matrix_market_vector(const std::string& path);

/// k right-hand sides of n entries each, stored row-major: entry (i, j) at
/// values[i·cols + j].
template <typename T>
struct DenseBlock {
  index_t rows = 0, cols = 0;
  std::vector<T> values;
};

/// Reads k right-hand sides: "matrix array real|integer general" n x k (values
/// listed column after column, as the array format orders them) or "matrix
/// coordinate real|integer general" n x k (entries not listed are zero).
/// Errors as for read_matrix_market_vector.
template <typename T>
DenseBlock<T> read_matrix_market_block(const std::string& path);

/// Writes "matrix coordinate real general", one entry per line in CSR order,
/// values with max_digits10 significant digits so reading back gives the same
/// bits. A path ending in ".gz" is written gzipped. The matrix must pass
/// validate(); a file that cannot be written throws InvalidInput naming it.
template <typename T>
void write_matrix_market(const std::string& path, const CsrMatrix<T>& matrix);

}  // namespace binamg
