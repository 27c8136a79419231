package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
)

// sklearnScript fits scikit-learn's Lasso once and prints one JSON line.
// Its argument is a JSON object: data (libsvm text), npz (a cache of the
// parsed matrix, written on first use), features, lambda (acfcd's λ; alpha
// = λ/ℓ), tol, max_iter and coef (where to write the float64 weights).
// It prints "start" just before fit, so that the harness times (and
// limits) the fit alone; fit_s is time.perf_counter around fit, which
// includes scikit-learn's own input checks and its CSR → CSC conversion.
const sklearnScript = `
import json, os, sys, time, warnings
import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso

a = json.loads(sys.argv[1])
npz = a["npz"]
if os.path.exists(npz) and os.path.getmtime(npz) >= os.path.getmtime(a["data"]):
    z = np.load(npz)
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    y = z["y"]
else:
    X, y = load_svmlight_file(a["data"], n_features=a["features"], dtype=np.float64)
    tmp = npz + ".tmp.npz"
    np.savez(tmp, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.array(X.shape), y=y)
    os.replace(tmp, npz)
n = X.shape[0]
m = Lasso(alpha=a["lambda"] / n, fit_intercept=False, tol=a["tol"], max_iter=a["max_iter"], selection="cyclic")
print("start", flush=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", ConvergenceWarning)
    t0 = time.perf_counter()
    m.fit(X, y)
    t1 = time.perf_counter()
converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
coef = np.ascontiguousarray(np.asarray(m.coef_, dtype="<f8").ravel())
coef.tofile(a["coef"])
print(json.dumps({"fit_s": t1 - t0, "n_iter": int(np.max(m.n_iter_)), "converged": converged,
                  "dual_gap": float(np.max(m.dual_gap_)), "nnz": int(np.count_nonzero(coef)),
                  "version": sklearn.__version__}), flush=True)
`

// sklearnOut is the script's JSON line.
type sklearnOut struct {
	FitSec    float64 `json:"fit_s"`
	NIter     int64   `json:"n_iter"`
	Converged bool    `json:"converged"`
	DualGap   float64 `json:"dual_gap"`
	NNZ       int     `json:"nnz"`
	Version   string  `json:"version"`
}

// sklearnVersion returns scikit-learn's version under python, or an error
// saying why it cannot be used.
func sklearnVersion(python string) (string, error) {
	if python == "" {
		return "", fmt.Errorf("disabled (-python \"\")")
	}
	out, err := exec.Command(python, "-c", "import sklearn, scipy, numpy; print(sklearn.__version__)").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %v: %s", python, err, strings.TrimSpace(lastLine(string(out))))
	}
	return strings.TrimSpace(string(out)), nil
}

// sklearnArgs is the script's JSON argument.
func sklearnArgs(data, npz, coef string, features int, lambda, tol float64, maxIter int) (string, error) {
	b, err := json.Marshal(map[string]any{"data": data, "npz": npz, "coef": coef, "features": features,
		"lambda": lambda, "tol": tol, "max_iter": maxIter})
	return string(b), err
}

// readCoef reads the little-endian float64 weights the script wrote.
func readCoef(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a float64 array", path, len(b))
	}
	w := make([]float64, len(b)/8)
	for i := range w {
		w[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return w, nil
}
