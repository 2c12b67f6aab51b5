// Tests that the sanitizer build skips, saying why (docs/testing.md, "The test command"). Each replays the whole corpus
// to check what the runner reports, or compares printed text; the sanitizer build already runs
// every corpus case through the reference once (Corpus.EveryCasePassesThroughTheProtocol) and
// every CLI path these use in its own tests, and at ASan's cost these replays would take CI past
// its 40 minutes. The release build runs them.
#pragma once
#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define TFSPEC_RELEASE_BUILD_ONLY(why) GTEST_SKIP() << "runs in the release build only: " << why
#else
#define TFSPEC_RELEASE_BUILD_ONLY(why) static_cast<void>(0)
#endif
