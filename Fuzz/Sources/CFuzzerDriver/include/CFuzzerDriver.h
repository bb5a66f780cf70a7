#ifndef MOCKAPNS_CFUZZERDRIVER_H
#define MOCKAPNS_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with their own `main` (SwiftPM gives each
/// executable one, so libFuzzer's own `main` is never linked in).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Runs libFuzzer over `callback` with the command line's arguments.
static inline int mockapns_run_fuzzer(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
#endif
