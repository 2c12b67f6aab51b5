// Fuzz target (issue 30): option values. The validators every subcommand's numeric options use
// (cli/src/run_control.hpp: a time budget in seconds, a bounded integer) and the TFSPEC_MPI_FAULT
// reader, on any text. Findings: a crash, an exception other than SpecError, or an accepted value
// the option's user would overflow with (a budget past the clock's range, an integer out of its
// bounds, a fault rank or step out of range).
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "fuzz_support.hpp"
#include "run_control.hpp"
#ifdef TFSPEC_FUZZ_MPI
#include "tfspec/multigpu/mpi.hpp"
#endif

using namespace tfspec;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  if (size < 1) return 0;
  std::string text = fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      static const CLI::Validator seconds = cli::positive_seconds();
      std::string v = text;
      if (seconds(v).empty()) {
        const double s = std::strtod(text.c_str(), nullptr);
        FUZZ_CHECK(std::isfinite(s) && s >= cli::kMinSeconds && s <= cli::kMaxSeconds, text);
        // what --deadline and reshard-run --timeout do with it: a steady_clock deadline
        const auto d = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
        FUZZ_CHECK(d.count() > 0, text);
      }
      break;
    }
    case 1: {
      static const CLI::Validator bounded = cli::integer_in(1, 86'400'000, "a number of milliseconds");
      std::string v = text;
      if (bounded(v).empty()) {
        const unsigned long long n = std::strtoull(text.c_str(), nullptr, 10);
        FUZZ_CHECK(n >= 1 && n <= 86'400'000, text);
      }
      break;
    }
    default: {
#ifdef TFSPEC_FUZZ_MPI
      try {
        const multigpu::mpi::Fault f = multigpu::mpi::parse_fault(text);
        FUZZ_CHECK(f.rank >= 0 && f.kind != multigpu::mpi::Fault::Kind::None, text);
      } catch (const SpecError&) {
      }
#endif
      break;
    }
  }
  return 0;
}
