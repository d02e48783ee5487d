#!/bin/bash
# vm.sh [KSCEN] - end-to-end tests: kscen vm and kscen ab, the host-side
# tests and one boot (tests/vm.sh KSCEN all, `make test-vm`, runs them all).
. "$(dirname "$0")/lib.sh"

. tests/vm.sh
finish vm
