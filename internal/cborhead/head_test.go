package cborhead

import (
	"bytes"
	"testing"
)

// TestHead: every argument size RFC 8949 defines, with what follows the
// head left untouched, and the forms a general decoder must take.
func TestHead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		data  []byte
		major byte
		arg   uint64
		rest  []byte
		ok    bool
	}{
		{[]byte{0x17, 0xff}, 0, 23, []byte{0xff}, true},
		{[]byte{0x38, 0x18}, 1, 24, nil, true},
		{[]byte{0x59, 0x01, 0x00, 'x'}, 2, 256, []byte{'x'}, true},
		{[]byte{0x7a, 0x00, 0x01, 0x00, 0x00}, 3, 65536, nil, true},
		{[]byte{0x9b, 0, 0, 0, 1, 0, 0, 0, 0}, 4, 1 << 32, nil, true},
		{[]byte{0xd8, 86}, 6, 86, nil, true},
		{[]byte{0xfb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 7, 0x3ff0000000000000, nil, true},
		{nil, 0, 0, nil, false},
		{[]byte{0x9f, 0x01, 0xff}, 0, 0, nil, false}, // indefinite-length array
		{[]byte{0x1c}, 0, 0, nil, false},             // reserved
		{[]byte{0x19, 0x01}, 0, 0, nil, false},       // cut short
	} {
		major, arg, rest, ok := Head(tt.data)
		if major != tt.major || arg != tt.arg || !bytes.Equal(rest, tt.rest) || ok != tt.ok {
			t.Errorf("Head(%x) = %d, %d, %x, %v; want %d, %d, %x, %v", tt.data, major, arg, rest, ok, tt.major, tt.arg, tt.rest, tt.ok)
		}
	}
}
