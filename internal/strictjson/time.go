package strictjson

import (
	"fmt"
	"strconv"
)

// checkTime checks the content of a JSON string given for a time.Time: RFC
// 3339 with every part in range. encoding/json (time.Time.UnmarshalJSON)
// reads the content unescaped, and its fallback (time.Parse) takes more
// than RFC 3339: a one-digit hour, a comma before the fraction, an offset
// of +24:00 to +24:59 or +23:60. Those are refused here, and so is an
// escape, which time.Time cannot read.
func checkTime(s []byte, esc bool) error {
	if why := rfc3339Problem(s, esc); why != "" {
		given := s
		if esc {
			given = unescape(s)
		}
		msg := fmt.Sprintf("want RFC 3339, e.g. %s, got %s", timeExample, strconv.Quote(clip(string(given))))
		if why != "?" {
			msg += " (" + why + ")"
		}
		return problem("%s", msg)
	}
	return nil
}

// rfc3339Problem returns what makes s not an RFC 3339 time as
// time.Time's fast path reads it (2006-01-02T15:04:05.999Z07:00), "?"
// when it is not that shape, or "" when it is one.
func rfc3339Problem(s []byte, esc bool) string {
	if esc || len(s) < len("2006-01-02T15:04:05Z") {
		return "?"
	}
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(s[0:4]), num(s[5:7]), num(s[8:10])
	hour, minute, second := num(s[11:13]), num(s[14:16]), num(s[17:19])
	if year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 ||
		s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return "?"
	}
	rest := s[19:]
	if len(rest) >= 2 && rest[0] == '.' && '0' <= rest[1] && rest[1] <= '9' {
		n := 2
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		rest = rest[n:]
	}
	offset := ""
	switch {
	case len(rest) == 1 && rest[0] == 'Z':
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, om := num(rest[1:3]), num(rest[4:6])
		if oh < 0 || om < 0 {
			return "?"
		}
		if oh > 23 || om > 59 {
			offset = string(rest)
		}
	default:
		return "?"
	}
	switch {
	case month < 1 || month > 12:
		return fmt.Sprintf("month %02d is out of range", month)
	case day < 1 || day > daysIn(month, year):
		return fmt.Sprintf("day %02d is out of range", day)
	case hour > 23:
		return fmt.Sprintf("hour %02d is out of range", hour)
	case minute > 59:
		return fmt.Sprintf("minute %02d is out of range", minute)
	case second > 59:
		return fmt.Sprintf("second %02d is out of range", second)
	case offset != "":
		return fmt.Sprintf("offset %s is beyond ±23:59", offset)
	}
	return ""
}

// daysIn returns the number of days of month in year (proleptic
// Gregorian, as package time counts).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
