// The manifest passes the commit as a define (Package.swift, `buildCommit`).
#include "mockapns_build_info.h"

#ifndef MOCKAPNS_BUILD_COMMIT
#define MOCKAPNS_BUILD_COMMIT ""
#endif

const char *mockapns_build_commit(void) {
    return MOCKAPNS_BUILD_COMMIT;
}
