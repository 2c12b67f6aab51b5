// Tests that the sanitizer build skips, saying why (docs/testing.md, "The test command"). Each replays the whole corpus
// to check what the runner reports, or compares printed text; the sanitizer build already runs
// every corpus case through the reference once (Corpus.EveryCasePassesThroughTheProtocol) and
// every CLI path these use in its own tests, and at ASan's cost these replays would take CI past
// its 40 minutes. The release build runs them.
#pragma once
#include <gtest/gtest.h>

// TFSPEC_ASAN: defined in an ASan build, by g++ (__SANITIZE_ADDRESS__) or clang++ (which says it
// through __has_feature only, in clang 14). Tests that shorten themselves under ASan test it.
#if defined(__SANITIZE_ADDRESS__)
#define TFSPEC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFSPEC_ASAN 1
#endif
#endif

#if defined(TFSPEC_ASAN)
#define TFSPEC_RELEASE_BUILD_ONLY(why) GTEST_SKIP() << "runs in the release build only: " << why
#else
#define TFSPEC_RELEASE_BUILD_ONLY(why) static_cast<void>(0)
#endif
