#!/bin/bash
# Fails unless the aws-ofi-nccl plugin library given as $1 was compiled with GDRCopy support.
#
# aws-ofi-nccl 1.21.1 (tag v1.21.1) decides GDRCopy support at configure time: m4/check_pkg_gdrcopy.m4
# sets HAVE_GDRCOPY to 1 only when gdrapi.h is found (and HAVE_DECL_GDR_PIN_BUFFER_V2 when that
# header is GDRCopy >= 2.5's), silently 0 otherwise. src/nccl_ofi_gdrcopy.cpp then compiles one of
# two bodies of nccl_ofi_gdrcopy_ctx, the context GIN's signal delivery needs:
#   HAVE_GDRCOPY 1: dlopen("libgdrapi.so") and dlsym of gdr_open ... gdr_pin_buffer_v2, failing with
#     "Failed to resolve libgdrapi.so symbol(s)" / "... (gdr_pin_buffer_v2)";
#   HAVE_GDRCOPY 0: a constructor that only logs "GDRCopy support not available at compile time"
#     and throws "GDRCopy support not available", so every GIN context fails at run time.
# Those string literals live only in their own branch, so they tell the builds apart in the binary.
set -euo pipefail
lib=${1:?usage: check-ofi-nccl-gdrcopy.sh /path/to/libnccl-net-ofi.so}
fail() {
    echo "check-ofi-nccl-gdrcopy: $lib: $*" >&2
    exit 1
}
[ -f "$lib" ] || fail "no such file"
deps=$(ldd "$lib" 2>&1) || fail "not a loadable shared object: $deps"
if grep -q 'not found' <<<"$deps"; then
    fail "unresolved libraries: $(grep 'not found' <<<"$deps" | tr -s ' \t\n' ' ')"
fi
if grep -aqF 'GDRCopy support not available' "$lib"; then
    fail "built without GDRCopy (HAVE_GDRCOPY 0: gdrapi.h was not found at configure time); NCCL GIN cannot start"
fi
grep -aqF 'Failed to resolve libgdrapi.so symbol(s)' "$lib" \
    || fail "has no GDRCopy loader (not aws-ofi-nccl >= 1.21 built with HAVE_GDRCOPY 1)"
grep -aqF 'gdr_pin_buffer_v2' "$lib" \
    || fail "built against GDRCopy headers older than 2.5 (HAVE_DECL_GDR_PIN_BUFFER_V2 0)"
echo "check-ofi-nccl-gdrcopy: $lib: built with GDRCopy (HAVE_GDRCOPY 1, gdr_pin_buffer_v2)"
