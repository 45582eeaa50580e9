package procstatus

import "testing"

func TestPeakRSS(t *testing.T) {
	t.Parallel()
	status := "Name:\tseshat\nVmPeak:\t 1395656 kB\nVmSize:\t 1395656 kB\nVmHWM:\t   36164 kB\nVmRSS:\t   36164 kB\n"
	if got := PeakRSS([]byte(status)); got != 36164*1024 {
		t.Errorf("PeakRSS = %d, want %d", got, 36164*1024)
	}
	for _, bad := range []string{"", "Name:\tx\n", "VmHWM:\t 12 MB\n", "VmHWM:\t -3 kB\n", "VmHWM:\t lots kB\n", "VmHWM:\n", "VmHWM:\t 99999999999999999999 kB\n"} {
		if got := PeakRSS([]byte(bad)); got != 0 {
			t.Errorf("PeakRSS(%q) = %d, want 0", bad, got)
		}
	}
}

// FuzzPeakRSS: the status file is the kernel's, but a parser never
// panics and never returns a negative size.
func FuzzPeakRSS(f *testing.F) {
	f.Add([]byte("VmHWM:\t   36164 kB\n"))
	f.Add([]byte("VmHWM: 1 kB extra\nVmHWM: 2 kB\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := PeakRSS(data); got < 0 {
			t.Errorf("PeakRSS = %d", got)
		}
	})
}
