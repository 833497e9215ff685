// GPUSCAN_TEST_ASAN is defined where this translation unit is compiled with AddressSanitizer (GCC's
// -fsanitize=address defines __SANITIZE_ADDRESS__; Clang answers __has_feature), as in the sanitizer
// build of scripts/test.sh.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define GPUSCAN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUSCAN_TEST_ASAN 1
#endif
#endif
