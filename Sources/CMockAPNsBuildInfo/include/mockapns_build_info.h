// What the package manifest knew when this binary was built, for `mockapns --version`.
#ifndef MOCKAPNS_BUILD_INFO_H
#define MOCKAPNS_BUILD_INFO_H

/// The commit the binary was built from (12 hex digits, ", modified" when the checkout had
/// changes), or "" when it was not built from a git checkout.
const char *mockapns_build_commit(void);

#endif
