#pragma once
// Compressed sparse row matrix on the host, float or double, 32-bit indices.
//
// Invariants every binamg function relies on (checked by validate()):
// row_ptr has rows+1 non-decreasing entries from 0 to nnz; within a row,
// column indices are strictly increasing (sorted, no duplicates) and in [0, cols).
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "binamg/core/error.hpp"
#include "binamg/core/host_device.hpp"
#include "binamg/core/types.hpp"

namespace binamg {

template <typename T>
struct CsrMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};
  std::vector<index_t> col_idx;
  std::vector<T> values;

  index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  index_t row_length(index_t row) const { return row_ptr[row + 1] - row_ptr[row]; }
};

/// An all-zero rows×cols matrix (row_ptr filled, no entries).
template <typename T>
CsrMatrix<T> zero_matrix(index_t rows, index_t cols);

/// Sets matrix's row offsets from the nonzeros of each row (row_nnz, one per
/// row) and sizes its columns and values to match; throws InvalidInput naming
/// `what` when the total passes 32-bit indices.
template <typename T>
void allocate_rows(CsrMatrix<T>& matrix, const std::vector<std::int64_t>& row_nnz,
                   const std::string& what);

/// The n×n identity.
template <typename T>
CsrMatrix<T> identity_matrix(index_t n);

/// Throws InvalidInput naming `what` and the offending row unless the CSR
/// invariants above hold and every value is finite.
template <typename T>
void validate(const CsrMatrix<T>& matrix, const std::string& what);

/// Throws InvalidInput unless the matrix is square, non-empty and has in every
/// row a diagonal entry whose reciprocal is finite (what AMG and Jacobi need).
template <typename T>
void require_square_with_diagonal(const CsrMatrix<T>& matrix, const std::string& what);

/// Why a diagonal entry cannot be divided by ("has a zero or missing diagonal
/// entry", or the value and that its reciprocal overflows T), for messages that
/// start with the row.
template <typename T>
std::string unusable_diagonal_reason(T value);

/// The diagonal as a dense vector (zero where a row has no diagonal entry).
template <typename T>
std::vector<T> diagonal(const CsrMatrix<T>& matrix);

/// The first row in which a's and b's patterns differ (its length or a
/// column), or -1 where they are the same; a and b have the same rows.
template <typename T>
index_t first_pattern_difference(const CsrMatrix<T>& a, const CsrMatrix<T>& b);

/// Largest entrywise |a - b| / max(|a|, |b|, scale) of two matrices with the
/// same sparsity pattern (0 where that is 0), e.g. one product computed in two
/// orders. `scale`, when given, has the same pattern and holds each entry's
/// magnitude of rounding: the sum of the |terms| that formed it. With it an
/// entry whose terms cancel is judged against its terms, whose rounding it
/// carries, not against its own tiny value. Throws InvalidInput naming `what`
/// if the shapes or patterns differ.
template <typename T>
double max_relative_difference(const CsrMatrix<T>& a, const CsrMatrix<T>& b,
                               const std::string& what, const CsrMatrix<double>* scale = nullptr);

/// Whether rounding `value` to To loses it: a finite value that overflows To,
/// or a nonzero one that To would store as 0 (non-finite values are left to
/// the matrix's own checks). Both devices.
template <typename To, typename From>
BINAMG_HOST_DEVICE bool rounds_away(From value) {
  const To rounded = static_cast<To>(value);
  return std::isfinite(value) &&
         (!std::isfinite(rounded) || (rounded == To(0) && value != From(0)));
}

/// Why rounding `value` to To loses it (rounds_away), or "" where it does not.
template <typename To, typename From>
std::string unrepresentable(From value) {
  if (!rounds_away<To>(value)) return "";
  const To rounded = static_cast<To>(value);
  std::ostringstream why;
  why.precision(3);
  if (!std::isfinite(rounded))
    why << value << " overflows " << (sizeof(To) == 4 ? "float" : "the narrower type")
        << " (largest " << double(std::numeric_limits<To>::max()) << ")";
  else
    why << value << " would be stored as 0 in " << (sizeof(To) == 4 ? "float" : "the narrower type")
        << " (smallest " << double(std::numeric_limits<To>::denorm_min()) << ")";
  return why.str();
}

/// "convert_values: A(row r, column c) = ... overflows float ...; solve in double".
std::string unrepresentable_entry_message(index_t row, index_t col, const std::string& why);

/// Converts precision (double -> float for a float solve, and back). Throws
/// InvalidInput naming the first entry that rounding would turn into an
/// infinity or a zero (a mixed-precision hierarchy would divide by it or lose
/// it without a word).
template <typename To, typename From>
CsrMatrix<To> convert_values(const CsrMatrix<From>& matrix) {
  CsrMatrix<To> result;
  result.rows = matrix.rows;
  result.cols = matrix.cols;
  result.row_ptr = matrix.row_ptr;
  result.col_idx = matrix.col_idx;
  result.values.assign(matrix.values.begin(), matrix.values.end());
  if constexpr (sizeof(To) < sizeof(From))
    for (index_t row = 0; row < matrix.rows; ++row)
      for (index_t k = matrix.row_ptr[row]; k < matrix.row_ptr[row + 1]; ++k)
        if (rounds_away<To>(matrix.values[k]))
          throw InvalidInput(unrepresentable_entry_message(row, matrix.col_idx[k],
                                                           unrepresentable<To>(matrix.values[k])));
  return result;
}

}  // namespace binamg
