# Sourced by Tests/Release/run.sh and Tests/Release/image.sh: what `mockapns --version` prints.
# is_version_line LINE VERSION: LINE is VERSION, or VERSION and the commit the build came from
# ("0.1.0 (commit 8cd17a937f22)", ", modified" when the checkout had changes).
is_version_line() {
    [[ "$1" == "$2" || "$1" =~ ^"$2 (commit "[0-9a-f]{12}(", modified")?")"$ ]]
}
