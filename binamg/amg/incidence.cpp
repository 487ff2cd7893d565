#include "binamg/amg/incidence.hpp"

#include <string>

namespace binamg {

template <typename T>
CsrMatrix<T> incidence_matrix(const std::vector<index_t>& group_of, index_t groups,
                              const std::string& what) {
  const index_t n = checked_index(static_cast<std::int64_t>(group_of.size()), what + ": rows");
  CsrMatrix<T> C = zero_matrix<T>(n, groups);
  C.col_idx = group_of;
  C.values.assign(n, T(1));
  for (index_t i = 0; i < n; ++i) {
    if (group_of[i] < 0 || group_of[i] >= groups)  // message built only on failure: a hot loop
      throw InvalidInput(what + ": row " + std::to_string(i) + " has group " +
                         std::to_string(group_of[i]) + " outside [0, " + std::to_string(groups) +
                         ")");
    C.row_ptr[i + 1] = i + 1;
  }
  return C;
}

std::vector<index_t> groups_of_ranges(const std::vector<index_t>& group_ptr, index_t rows,
                                      const std::string& what) {
  require(!group_ptr.empty() && group_ptr.front() == 0 && group_ptr.back() == rows,
          what + ": the groups must cover rows 0 to " + std::to_string(rows));
  std::vector<index_t> group_of(rows);
  for (std::size_t p = 0; p + 1 < group_ptr.size(); ++p) {
    if (group_ptr[p] >= group_ptr[p + 1])  // message built only on failure: a hot loop
      throw InvalidInput(what + ": group " + std::to_string(p) + " holds no rows");
    for (index_t i = group_ptr[p]; i < group_ptr[p + 1]; ++i) group_of[i] = index_t(p);
  }
  return group_of;
}

#define BINAMG_INSTANTIATE(T)                                                     \
  template CsrMatrix<T> incidence_matrix<T>(const std::vector<index_t>&, index_t, \
                                            const std::string&);
BINAMG_INSTANTIATE(float)
BINAMG_INSTANTIATE(double)
#undef BINAMG_INSTANTIATE

}  // namespace binamg
