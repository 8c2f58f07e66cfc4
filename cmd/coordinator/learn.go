package main

import (
	"github.com/nqueens/nqueens/render"
)

// labelsFlag is --labels: bare it means letters (a-h / 1-8 like a
// chessboard), or --labels=numbers, --labels=off.
type labelsFlag struct{ v *render.Labels }

func (l labelsFlag) String() string {
	if l.v == nil {
		return render.NoLabels.String()
	}
	return l.v.String()
}

func (l labelsFlag) Set(s string) error {
	m, err := render.ParseLabels(s)
	if err != nil {
		return err
	}
	*l.v = m
	return nil
}

// IsBoolFlag lets --labels stand alone.
func (labelsFlag) IsBoolFlag() bool { return true }
