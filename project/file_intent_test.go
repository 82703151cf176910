package project

import (
	"reflect"
	"testing"
)

func TestNormRegions(t *testing.T) {
	got := normRegions([]focusRegion{
		{from: 50, to: 60, minor: true},
		{from: 10, to: 20},
		{from: 15, to: 30, minor: true, whole: 40},
		{from: 31, to: 31, minor: true},
		{from: 61, to: 61},
		{from: 9, to: 8},
	})
	want := []focusRegion{
		{from: 10, to: 30, whole: 40},
		{from: 31, to: 31, minor: true},
		{from: 50, to: 60, minor: true},
		{from: 61, to: 61},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normRegions = %+v\nwant %+v", got, want)
	}
}
