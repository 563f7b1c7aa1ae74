package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// benchRecord is an ingest-like record of 10 string, int and time fields.
type benchRecord struct {
	ID          string    `json:"id"`
	ExternalID  string    `json:"external_id"`
	User        string    `json:"user"`
	UserText    string    `json:"user_text"`
	ReplyText   string    `json:"reply_text"`
	OccurredAt  time.Time `json:"occurred_at"`
	Source      string    `json:"source"`
	Kind        int       `json:"kind"`
	State       int       `json:"state"`
	Sensitivity int       `json:"sensitivity"`
}

// benchLine returns the JSON of the i'th record, about 1 KB.
func benchLine(i int) []byte {
	r := benchRecord{
		ID:          fmt.Sprintf("ep-%06d", i),
		ExternalID:  fmt.Sprintf("chat-%06d", i),
		User:        "user-42",
		UserText:    strings.Repeat("昨日は味噌ラーメンを食べた。", 12) + " and then we talked about the weather.",
		ReplyText:   strings.Repeat("It sounds delicious; which shop was it? ", 8),
		OccurredAt:  time.Date(2025, 6, 1, 10, 0, i%60, 0, time.FixedZone("", 9*3600)),
		Source:      "chat",
		Kind:        2,
		State:       1,
		Sensitivity: 1,
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

// oldDecodeBytes is DecodeBytes before the walk: the text checks and
// encoding/json's strict decoder.
func oldDecodeBytes(b []byte, v any) error {
	if err := CheckText(b); err != nil {
		return err
	}
	body, _ := bytes.CutPrefix(b, bom)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// BenchmarkDecodeBytes compares DecodeBytes (walk, then encoding/json)
// with the old path (encoding/json alone) on one JSON Lines line of a
// record and on a body of 1,000 records; walk is the walk alone.
func BenchmarkDecodeBytes(b *testing.B) {
	line := benchLine(0)
	var body bytes.Buffer
	body.WriteByte('[')
	for i := range 1000 {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(benchLine(i))
	}
	body.WriteByte(']')
	inputs := []struct {
		name string
		in   []byte
		v    func() any
	}{
		{"line", line, func() any { return new(benchRecord) }},
		{"body1000", body.Bytes(), func() any { return new([]benchRecord) }},
	}
	for _, in := range inputs {
		b.Run(in.name+"/strict", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := DecodeBytes(in.in, in.v()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := oldDecodeBytes(in.in, in.v()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/walk", func(b *testing.B) {
			n := schemaOf(reflect.TypeOf(in.v()))
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				w := walker{data: in.in}
				if err := w.value(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
