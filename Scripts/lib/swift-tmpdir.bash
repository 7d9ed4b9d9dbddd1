# Sourced by the scripts that run SwiftPM. `swift build` and the compiler's driver leave empty
# `TemporaryDirectory.*` folders in TMPDIR (about nine per build, never removed): each `swift`
# command here gets a folder of its own as TMPDIR, removed when it ends.
swift() {
  local scratch status=0
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/shiplane-swiftpm.XXXXXX")"
  TMPDIR="$scratch" command swift "$@" || status=$?
  rm -rf "$scratch"
  return "$status"
}
