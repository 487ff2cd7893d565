// A deterministic mutation fuzzer over the Matrix Market readers, used as
// amg_solve uses them (the declaration read first: a matrix needs as many
// stored entries as rows, a right-hand side the matrix's rows). Every input,
// mutated from valid seeds, must end in a result or a clear InvalidInput:
// never a crash, a hang, another exception or an unbounded allocation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "binamg/core/error.hpp"
#include "binamg/sparse/matrix_market.hpp"

namespace binamg {
namespace {

// splitmix64: the same stream on every platform, unlike the standard engines'
// distributions.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : std::size_t(next() % n); }

 private:
  std::uint64_t state_;
};

enum class Kind { matrix, vector, block };

struct Seed {
  const char* name;
  Kind kind;
  std::string text;
};

const index_t kRows = 4;  // every seed's matrix and right-hand side rows

std::vector<Seed> seeds() {
  return {
      {"general", Kind::matrix,
       "%%MatrixMarket matrix coordinate real general\n% a comment\n4 4 7\n1 1 4\n2 2 4\n"
       "3 3 4\n4 4 4\n2 1 -1\n1 2 -1\n4 3 -1.5e0\n"},
      {"symmetric", Kind::matrix,
       "%%MatrixMarket matrix coordinate real symmetric\n4 4 6\n1 1 2\n2 1 -1\n2 2 2\n"
       "3 3 2\n4 3 -1\n4 4 2\n"},
      {"pattern", Kind::matrix,
       "%%MatrixMarket matrix coordinate pattern general\n4 4 5\n1 1\n2 2\n3 3\n4 4\n1 4\n"},
      {"integer", Kind::matrix,
       "%%MatrixMarket matrix coordinate integer symmetric\r\n4 4 4\r\n1 1 3\r\n2 2 3\r\n"
       "3 3 3\r\n4 4 3\r\n"},
      {"skew", Kind::matrix,
       "%%MatrixMarket matrix coordinate real skew-symmetric\n4 4 4\n2 1 1\n3 1 2\n4 2 3\n"
       "4 3 4\n"},
      {"array_vector", Kind::vector, "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n"},
      {"coordinate_vector", Kind::vector,
       "%%MatrixMarket matrix coordinate real general\n4 1 2\n1 1 1.5\n4 1 -2\n"},
      {"array_block", Kind::block,
       "%%MatrixMarket matrix array real general\n4 2\n1\n2\n3\n4\n5\n6\n7\n8\n"},
  };
}

// Tokens that stress the size line and the entries.
const char* const kNumbers[] = {"0",  "-1", "4",    "2147483647", "2147483648", "-2147483648",
                                "99999999999999999999", "1e400", "1e-400", "nan", "inf",
                                "1.5", "+3", "0x10", "", "1000000000", "3 3", "1e308"};

std::string mutate(const std::string& input, Random& random) {
  std::string text = input;
  const int edits = 1 + int(random.below(3));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = random.below(text.size() + 1);
    switch (random.below(9)) {
      case 0:  // flip a bit
        if (!text.empty()) text[random.below(text.size())] ^= char(1u << random.below(8));
        break;
      case 1:  // insert a random byte
        text.insert(at, 1, char(random.below(256)));
        break;
      case 2:  // delete a run
        text.erase(at, random.below(8));
        break;
      case 3:  // truncate
        text.resize(at);
        break;
      case 4: {  // replace the token at `at` with a stressing number
        std::size_t begin = at, end = at;
        while (begin > 0 && text[begin - 1] != ' ' && text[begin - 1] != '\n') --begin;
        while (end < text.size() && text[end] != ' ' && text[end] != '\n') ++end;
        text.replace(begin, end - begin, kNumbers[random.below(std::size(kNumbers))]);
        break;
      }
      case 5:  // a NUL byte
        text.insert(at, 1, '\0');
        break;
      case 6: {  // duplicate or drop a line
        const std::size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
        const std::size_t start = begin == std::string::npos ? 0 : begin + 1;
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end == std::string::npos ? end : end - start + 1);
        if (random.below(2))
          text.insert(start, line);
        else
          text.erase(start, line.size());
        break;
      }
      case 7:  // swap two bytes
        if (text.size() > 1) std::swap(text[random.below(text.size())], text[random.below(text.size())]);
        break;
      default:  // line ends: "\r", "\r\n" or none
        text.insert(at, random.below(2) ? "\r" : "\r\n");
        break;
    }
  }
  return text;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Reads `path` as amg_solve would; returns normally on a result or InvalidInput.
template <typename T>
void read_as_amg_solve(const std::string& path, Kind kind) {
  try {
    const MatrixMarketInfo info = read_matrix_market_info(path);
    if (kind == Kind::matrix) {
      require(!info.coordinate || info.stored_entries >= info.rows, "too few entries");
      const CsrMatrix<T> A = read_matrix_market<T>(path);
      validate(A, path);  // what the reader returns passes validate()
    } else {
      require(info.rows == kRows, "rows differ from the matrix's");
      if (kind == Kind::vector)
        read_matrix_market_vector<T>(path);
      else
        read_matrix_market_block<T>(path);
    }
  } catch (const InvalidInput&) {
  }
}

TEST(MatrixMarketFuzz, MutatedFilesEndInAResultOrAClearError) {
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("binamg_fuzz_" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  const std::vector<Seed> all = seeds();
  // gzip versions of the matrices, written by the library, damaged below as bytes.
  std::vector<std::string> gzipped;
  for (const Seed& seed : all) {
    if (seed.kind != Kind::matrix) continue;
    const std::string plain = (directory / (std::string(seed.name) + ".mtx")).string();
    write_bytes(plain, seed.text);
    const std::string packed = plain + ".gz";
    write_matrix_market(packed, read_matrix_market<double>(plain));
    gzipped.push_back(read_bytes(packed));
  }
  Random random(20261128);
  const std::string input = (directory / "input.mtx").string();
  const auto start = std::chrono::steady_clock::now();
  const int cases = 24000;
  for (int c = 0; c < cases; ++c) {
    const bool gzip = c % 6 == 5;
    const Seed& seed = all[random.below(all.size())];
    const Kind kind = gzip ? Kind::matrix : seed.kind;
    const std::string bytes = gzip ? mutate(gzipped[random.below(gzipped.size())], random)
                                   : mutate(seed.text, random);
    write_bytes(input, bytes);
    SCOPED_TRACE("case " + std::to_string(c) + " from seed " + seed.name);
    try {
      if (c % 2 == 0)
        read_as_amg_solve<double>(input, kind);
      else
        read_as_amg_solve<float>(input, kind);
    } catch (const std::exception& error) {
      FAIL() << "case " << c << ": " << error.what() << " (input kept in " << input << ")";
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove_all(directory);
  // A hang or an unbounded allocation shows as time: 24000 reads of tiny files
  // take well under a second each.
  EXPECT_LT(seconds, 60.0) << cases << " inputs";
}

}  // namespace
}  // namespace binamg
