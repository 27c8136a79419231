//go:build unix && !linux

package dataio

const mapPopulate = 0
