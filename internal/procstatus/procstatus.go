package procstatus

import (
	"bufio"
	"bytes"
	"strconv"
)

// PeakRSS reads the VmHWM line of a /proc/<pid>/status file ("VmHWM:
// 36164 kB"), in bytes; 0 when there is none or it is not a size in kB.
func PeakRSS(status []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0
		}
		kib, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kib <= 0 || kib > 1<<40 {
			return 0
		}
		return kib * 1024
	}
	return 0
}
