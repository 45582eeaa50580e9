package parsers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/seshat-bench/seshat/models"
)

// NvidiaSMIQuery is the --query-gpu field list NvidiaSMIGPUs decodes, in
// column order. Run nvidia-smi with it and --format=csv,noheader,nounits.
const NvidiaSMIQuery = "index,name,uuid,memory.total,driver_version"

// NvidiaSMIGPUs decodes the output of
//
//	nvidia-smi --query-gpu=index,name,uuid,memory.total,driver_version --format=csv,noheader,nounits
//
// one GPU a line, memory in MiB. Values nvidia-smi could not read ("[N/A]",
// "[Not Supported]") are left empty. A malformed line is skipped and reported
// in the error (a *SyntaxError with its line); the other GPUs are returned.
func NvidiaSMIGPUs(name string, data []byte) ([]models.GPU, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1 // checked below, with a clearer message
	r.LazyQuotes = true
	var gpus []models.GPU
	var errs []error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				errs = append(errs, &SyntaxError{File: name, Line: pe.Line, Msg: pe.Err.Error()})
				if pe.Err == csv.ErrFieldCount {
					continue
				}
			} else {
				errs = append(errs, &SyntaxError{File: name, Line: line, Msg: err.Error()})
			}
			break // the reader cannot resynchronise after a syntax error
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != 5 {
			errs = append(errs, &SyntaxError{File: name, Line: line, Msg: "expected 5 fields (" + NvidiaSMIQuery + "), found " + strconv.Itoa(len(rec))})
			continue
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
			if strings.HasPrefix(rec[i], "[") && strings.HasSuffix(rec[i], "]") {
				rec[i] = "" // [N/A], [Not Supported], [Unknown Error]
			}
		}
		g := models.GPU{Name: rec[1], UUID: rec[2], Driver: rec[4]}
		idx, err := strconv.Atoi(rec[0])
		if err != nil || idx < 0 {
			errs = append(errs, &SyntaxError{File: name, Line: line, Field: "index", Msg: "not a GPU index: " + quoteShort(rec[0])})
			continue
		}
		g.Index = idx
		if rec[3] != "" {
			mib, err := strconv.ParseFloat(rec[3], 64)
			if err != nil || mib < 0 || mib > math.MaxUint64/(1<<20) || math.IsNaN(mib) {
				errs = append(errs, &SyntaxError{File: name, Line: line, Field: "memory.total", Msg: "not a size in MiB: " + quoteShort(rec[3])})
				continue
			}
			g.MemoryBytes = uint64(mib * (1 << 20))
		}
		gpus = append(gpus, g)
	}
	return gpus, errors.Join(errs...)
}
