package pi

import "testing"

// TestBLASLabel: the blas label names libraries and versions, never paths,
// from what the PIs report now and what they reported before.
func TestBLASLabel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"openblas 0.3.21", "openblas 0.3.21"},
		{"gonum", "gonum"},
		{"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so,/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", "openblas 0.3.21"},
		{"/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", "openblas"},
		{"/opt/conda/lib/libmkl_rt.so.2", "mkl"},
		{"/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4,/usr/lib/x86_64-linux-gnu/libcblas.so.3", "blis, libcblas.so.3"},
		{"/site-packages/numpy.libs/libopenblas64_p-r0.3.23.dev-8b1a9e5f.so", "openblas 0.3.23"},
	} {
		if got := blasLabel(tt.in); got != tt.want {
			t.Errorf("blasLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
