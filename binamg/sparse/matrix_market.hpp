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

/// Reads a "matrix coordinate" file with field real, integer or pattern
/// (pattern entries become 1) and symmetry general, symmetric (off-diagonal
/// entries mirrored) or skew-symmetric (mirrored with the sign flipped).
/// Comment lines (%) may appear between the banner and the size line, blank
/// lines anywhere after the banner. Entries may come in any order; the result
/// has sorted rows and passes validate().
///
/// Rejected, with the file and line named: a missing or malformed banner; the
/// array format, complex and hermitian files (named as unsupported); a bad size
/// line; negative dimensions, or one dimension zero (a 0 x 0 matrix reads as an
/// empty matrix, which AMG callers reject later); sizes or nnz past 2^31-1; an
/// index out of range; too few or too many entries; a malformed, NaN or
/// infinite value; duplicate entries (both lines named); an entry above the
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
