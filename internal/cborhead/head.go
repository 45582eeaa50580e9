// Package cborhead reads the head of a CBOR data item (RFC 8949 §3), for
// the hand-written decoders of the parse cache's hottest items (models'
// samples and flags, the store's record headers).
package cborhead

// Head decodes the head of a CBOR data item: its major type, its argument
// (a length, a tag number or a value) and what follows. ok is false for
// the forms it does not take (indefinite lengths, reserved values, a head
// cut short), which callers leave to a general decoder.
func Head(data []byte) (major byte, arg uint64, rest []byte, ok bool) {
	if len(data) == 0 {
		return 0, 0, nil, false
	}
	major, info := data[0]>>5, data[0]&0x1f
	data = data[1:]
	var size int
	switch {
	case info < 24:
		return major, uint64(info), data, true
	case info == 24:
		size = 1
	case info == 25:
		size = 2
	case info == 26:
		size = 4
	case info == 27:
		size = 8
	default:
		return 0, 0, nil, false
	}
	if len(data) < size {
		return 0, 0, nil, false
	}
	for _, b := range data[:size] {
		arg = arg<<8 | uint64(b)
	}
	return major, arg, data[size:], true
}
