package fit

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strconv"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
)

// Checks of the data before any work: malformed datasets, the memory
// guard against feature counts the data does not justify, and the
// messages for labels a classifier cannot take.

// The data are sparse but the weight vectors are dense: a file of a few
// bytes can name feature 2147483646, and liblinear would then allocate
// 16 GiB per weight vector. A solver stops instead, before allocating,
// when its dense per-feature arrays would need more than
// denseFloorBytes and more than denseDataFactor times the memory of the
// data itself, unless the dataset was read with a MaxFeatures
// (--max-features) that covers its feature count: that declares the size
// intended.
const (
	denseFloorBytes = 256 << 20
	denseDataFactor = 4
)

// maxSolverFeatures is the most features the solvers take: the bias
// feature's index must fit in an int32 next to the others.
const maxSolverFeatures = math.MaxInt32 - 1

// DenseVectors is the number of dense per-feature float64 vectors a
// one-vs-rest classifier with the given labels allocates: the model's
// (one per subproblem) and one per worker training them. It bounds the
// Weston–Watkins SVM's K as well.
func DenseVectors(labels int) uint64 {
	nsub := labels
	if nsub == 2 {
		nsub = 1
	}
	nsub = max(nsub, 1)
	return uint64(nsub + min(runtime.GOMAXPROCS(0), nsub))
}

// CheckDense returns an error when a solver that allocates perFeature
// bytes for every feature (and the bias) should not go ahead on d (see
// denseFloorBytes). what names the solver, and classes is the number of
// classes behind perFeature (0 for regression), for the message.
func CheckDense(d *dataio.Dataset, perFeature uint64, what string, classes int) error {
	if d.MaxFeatures > 0 && d.Features <= d.MaxFeatures {
		return nil
	}
	need := perFeature * uint64(d.Features+1)
	if need <= denseFloorBytes {
		return nil
	}
	nnz, data := dataBytes(d)
	if need <= denseDataFactor*data {
		return nil
	}
	per, regress := "", ""
	if classes > 2 {
		per = fmt.Sprintf(", %d classes", classes)
		regress = "; if the labels are regression targets rather than classes, the LASSO fits them"
	}
	return &DataError{Msg: fmt.Sprintf("%s is too many for %d examples with %d non-zeros: %s would allocate %s of dense weights "+
		"(%d bytes per feature%s) for %s of data. If that index is a mistake, fix the data or reject such indices "+
		"with a feature cap below it%s", featureCount(d), d.Rows, nnz, what, byteSize(need), perFeature, per, byteSize(data), regress),
		Hint: dataio.Hint{Option: "Options.MaxFeatures", Value: strconv.Itoa(d.Features), Text: "to train anyway, declare the size: %s"}}
}

// dataBytes returns the non-zeros of d and the memory of its rows: the
// guards' measure of what the data justifies.
func dataBytes(d *dataio.Dataset) (nnz, data uint64) {
	nnz = uint64(d.RowPtr[d.Rows])
	valBytes := uint64(8)
	if d.Value == nil {
		valBytes = 4
	}
	return nnz, uint64(d.Rows)*16 + nnz*(4+valBytes)
}

// dualDataFactor is denseDataFactor for the multi-class duals, K values
// per example where the data holds about 12 bytes per non-zero: 64 lets
// a thousand classes train on rows of 64 non-zeros.
const dualDataFactor = 64

// CheckDuals returns an error when a solver that keeps perClass bytes
// for each of the classes of every example (the multi-class SVMs' duals)
// should not go ahead on d: as CheckDense's, when they would need more
// than denseFloorBytes and more than dualDataFactor times the memory of
// the data. A file of one line per class asks for rows × classes of them
// (320 GB for 200,000 lines of 10 bytes). what names the solver.
func CheckDuals(d *dataio.Dataset, perClass uint64, what string, classes int) error {
	nnz, data := dataBytes(d)
	hi, per := bits.Mul64(perClass, uint64(max(classes, 0)))
	hi2, need := bits.Mul64(per, uint64(d.Rows))
	if hi == 0 && hi2 == 0 && (need <= denseFloorBytes || need/dualDataFactor <= data) {
		return nil
	}
	src := d.Source
	if src == "" {
		src = "the data"
	}
	return &DataError{Msg: fmt.Sprintf("%s: %d classes in %d examples with %d non-zeros are too many for %s: "+
		"it keeps %d bytes for each class of every example and would allocate %s for %s of data. "+
		"A one-vs-rest solver (-s 0 to 3, 5 to 7) keeps the %d weight vectors without them; or merge the rare classes; "+
		"if the labels are regression targets rather than classes, the LASSO fits them",
		src, classes, d.Rows, nnz, what, perClass, byteSizeF(float64(perClass)*float64(classes)*float64(d.Rows)), byteSize(data), classes)}
}

// checkFeatureCount rejects a feature count the solvers cannot index.
func checkFeatureCount(d *dataio.Dataset) error {
	if d.Features <= maxSolverFeatures {
		return nil
	}
	return &DataError{Msg: fmt.Sprintf("%s is too many: the solvers take at most %d features (the bias feature needs the next index)",
		featureCount(d), maxSolverFeatures), Hint: dataio.Hint{Option: "Options.MaxFeatures", Text: "reject such indices with a cap: %s"}}
}

// DataError is a dataset that a solver refuses, with the option of
// Options that would change that (Hint), so that a program and a command
// line can each name it in their words (see dataio.ParseError).
type DataError struct {
	Msg  string
	Hint dataio.Hint
}

func (e *DataError) Error() string { return e.Message(dataio.GoName) }

// Message is the error's text with the option of its hint named by name.
func (e *DataError) Message(name func(option, value string) string) string {
	return e.Msg + e.Hint.Render(name)
}

// featureCount describes d's feature count and where it comes from, to
// start a message: "FILE:LINE: feature count N (set by the largest index,
// on this line)".
func featureCount(d *dataio.Dataset) string {
	nnz := d.RowPtr[d.Rows]
	best, at := int32(-1), int64(-1)
	for k, j := range d.Index[:nnz] {
		if j > best {
			best, at = j, int64(k)
		}
	}
	src := d.Source
	if src == "" {
		src = "the data"
	}
	if int64(best)+1 < int64(d.Features) {
		return fmt.Sprintf("%s: feature count %d (recorded in the data; its indices need only %d)", src, d.Features, int64(best)+1)
	}
	lo, hi := 0, d.Rows-1 // the last row r with RowPtr[r] <= at holds it
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if d.RowPtr[mid] <= at {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return fmt.Sprintf("%s: feature count %d (set by the largest feature index, here)", d.Where(lo), d.Features)
}

// byteSize formats n bytes for a message.
func byteSize(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// byteSizeF is byteSize for sizes beyond a uint64.
func byteSizeF(n float64) string {
	if n < 1<<60 {
		return byteSize(uint64(n))
	}
	return fmt.Sprintf("%.3g GiB", n/(1<<30))
}

// labelError is groupClasses's error: the label of example row (0-based)
// is not an integer in the int32 range.
type labelError struct {
	row   int
	label float64
}

func (e *labelError) Error() string {
	return fmt.Sprintf("label %g of example %d is not an integer class label (classification needs integral labels)", e.label, e.row+1)
}

// labelMessage is the error for a labelError in d: located in d's file,
// with liblinear's behaviour and the regression solver as a hint.
func labelMessage(d *dataio.Dataset, e *labelError) error {
	v := e.label
	if math.IsNaN(v) || !intLabel(v) {
		text := strconv.FormatFloat(v, 'g', -1, 64)
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			text = strconv.FormatFloat(v, 'f', -1, 64) // -2147483649, not -2.147483649e+09
		}
		return fmt.Errorf("%s: label %s is not a class label: classifiers take integer labels in the int32 range "+
			"[-2147483648, 2147483647] (liblinear stores them as C ints); for regression targets use -s lasso or an SVR (-s 11, 12, 13)", d.Where(e.row), text)
	}
	return fmt.Errorf("%s: label %g is not an integer: classifiers take integer class labels "+
		"(liblinear would truncate it to %g and make every distinct value a class); for regression targets use -s lasso or an SVR (-s 11, 12, 13)",
		d.Where(e.row), v, math.Trunc(v)+0)
}

// CheckData rejects datasets the solvers cannot use, before any work.
// A hand-built row with a repeated or unordered index ({1, 1}) would train
// a model that matches neither reading of it: refused, as the reader
// refuses such a line (Dataset.Check).
func CheckData(d *dataio.Dataset) error {
	if d == nil {
		return errors.New("no training examples")
	}
	if d.Rows == 0 {
		if d.Source != "" {
			return fmt.Errorf("%s: no training examples", d.Source)
		}
		return errors.New("no training examples")
	}
	if d.Rows > math.MaxInt32 {
		return fmt.Errorf("%d examples: at most %d are supported", d.Rows, math.MaxInt32)
	}
	if err := d.Check(); err != nil {
		return err
	}
	return checkFeatureCount(d)
}

// CheckSquares rejects data whose squares overflow a float64: an example
// whose ‖x‖² + B² (B = bias, if > 0) is not finite has no usable step (its
// steps are 0 or NaN) and would leave a wrong model, whichever solver runs.
// The message names the example's line and its largest value.
func CheckSquares(d *dataio.Dataset, bias float64) error {
	b2 := 0.0
	if bias > 0 {
		if b2 = bias * bias; math.IsInf(b2, 0) {
			return fmt.Errorf("bias %g: its square overflows a float64; use a smaller -B", bias)
		}
	}
	if d.Value == nil {
		return nil // float32 values: a square is below 1.2e77, a row's sum finite
	}
	for i := 0; i < d.Rows; i++ {
		row := d.Value[d.RowPtr[i]:d.RowPtr[i+1]]
		if sq := kernel.SqNorm(row) + b2; !math.IsInf(sq, 0) && sq == sq {
			continue
		}
		at := 0
		for k, v := range row {
			if !(math.Abs(v) <= math.Abs(row[at])) {
				at = k
			}
		}
		return fmt.Errorf("%s: feature %d value %g: the example's squared norm ‖x‖² overflows a float64; scale the features down",
			d.Where(i), d.Index[d.RowPtr[i]+int64(at)]+1, row[at])
	}
	return nil
}

// CheckClassification checks the data of a classifier (the one-vs-rest
// families and the multi-class SVMs) under s: well formed, squares that do
// not overflow, integral labels and the memory of the dense weights; it
// returns the classes in liblinear's order
// and, with perExample, each example's class index (the one-vs-rest duals
// do without it: at 10⁷ examples it would be 40 MB, and each subproblem's
// ±1 labels come from comparing the labels themselves).
func CheckClassification(d *dataio.Dataset, s *Spec, perExample bool) (labels []float64, class []int32, err error) {
	if err := CheckData(d); err != nil {
		return nil, nil, err
	}
	if err := CheckSquares(d, s.Bias); err != nil {
		return nil, nil, err
	}
	if perExample {
		class = make([]int32, len(d.Label))
	}
	labels, err = group(d.Label, class)
	if le, ok := err.(*labelError); ok {
		return nil, nil, labelMessage(d, le)
	}
	if err == nil {
		err = CheckDense(d, 8*DenseVectors(len(labels)), "training", len(labels))
	}
	return labels, class, err
}

// Classes orders the labels as liblinear's group_classes (identical
// in 2.3.0 and 2.50): by first appearance, except that a two-class problem
// whose labels are -1 then +1 is swapped so that +1 is class 0, the
// positive side of the binary problem. It returns the labels and each
// example's class index.
func Classes(y []float64) ([]float64, []int32, error) {
	class := make([]int32, len(y))
	labels, err := group(y, class)
	if err != nil {
		return nil, nil, err
	}
	return labels, class, nil
}

// group is groupClasses writing the class indices into class, or only
// returning the labels if class is nil.
func group(y []float64, class []int32) ([]float64, error) {
	var labels []float64
	seen := map[float64]int32{}
	for i, v := range y {
		if v != math.Trunc(v) || !intLabel(v) {
			return nil, &labelError{row: i, label: v}
		}
		if v == 0 {
			v = 0 // -0 and +0 are one class
		}
		k, ok := seen[v]
		if !ok {
			k = int32(len(labels))
			seen[v] = k
			labels = append(labels, v)
		}
		if class != nil {
			class[i] = k
		}
	}
	if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
		labels[0], labels[1] = labels[1], labels[0]
		for i := range class {
			class[i] = 1 - class[i]
		}
	}
	return labels, nil
}

// intLabel reports whether v is in the range of liblinear's class labels,
// C ints: [−2³¹, 2³¹ − 1] (false for ±Inf and NaN).
func intLabel(v float64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

func IndexOf(s []float64, v float64) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
