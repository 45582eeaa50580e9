#!/bin/sh
# The stand-in PI fake-rate.awk beside this file as a command of its own
# (for a benchmark that names a script): SPEED_FILE [SLOW_FILE [NOISE]].
exec awk -f "${0%/*}/fake-rate.awk" "$@"
