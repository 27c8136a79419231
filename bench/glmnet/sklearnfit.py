# The scikit-learn side of bench/glmnet: python3 sklearnfit.py DATA FEATURES
#
# Reads the libsvm file DATA (load_svmlight_file, then CSC; not timed),
# prints "ready ...", then answers one JSON command per line of standard
# input with one line on standard output:
#
#   {"cmd": "fit", "alphas": [...], "l1_ratio": A, "tol": T, "max_iter": N,
#    "intercept": true, "out": FILE}
#
# alphas are scikit-learn's alpha = lambda/rows, largest first: one value
# is a single Lasso (ElasticNet for l1_ratio < 1) fit; more are a path, fit
# as LassoCV's path is with an intercept on sparse data, one warm-started
# fit per alpha. Only the fits are timed. The coefficients go to out in
# the layout of glmnet.R (int32 n, float64 alpha[n], float64
# intercept[n], int32 colptr[n+1], int32 row[nnz], float64 x[nnz]). The
# answer is "done key=value ..." or "error MESSAGE".
import json, sys, time, warnings
import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet, Lasso

t0 = time.perf_counter()
X, y = load_svmlight_file(sys.argv[1], n_features=int(sys.argv[2]), dtype=np.float64)
X = sp.csc_matrix(X)
X.sort_indices()
print("ready rows=%d features=%d nnz=%d parse_s=%.3f sklearn=%s" % (X.shape[0], X.shape[1], X.nnz,
      time.perf_counter() - t0, sklearn.__version__), flush=True)


def fit(a):
    alphas = [float(v) for v in a["alphas"]]
    l1 = float(a.get("l1_ratio", 1.0))
    kw = dict(fit_intercept=bool(a["intercept"]), tol=float(a["tol"]), max_iter=int(a["max_iter"]),
              warm_start=True, copy_X=False, selection="cyclic")
    m = Lasso(alpha=alphas[0], **kw) if l1 == 1 else ElasticNet(alpha=alphas[0], l1_ratio=l1, **kw)
    coefs, icepts, iters = [], [], 0
    converged = True
    secs = 0.0
    for al in alphas:
        m.set_params(alpha=al)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            t = time.perf_counter()
            m.fit(X, y)
            secs += time.perf_counter() - t
        converged = converged and not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        c = sp.csc_matrix(np.asarray(m.coef_, dtype=np.float64).reshape(-1, 1))
        coefs.append(c)
        icepts.append(float(m.intercept_))
        iters += int(np.max(m.n_iter_))
    B = sp.hstack(coefs, format="csc")
    with open(a["out"], "wb") as f:
        np.array([len(alphas)], dtype="<i4").tofile(f)
        np.asarray(alphas, dtype="<f8").tofile(f)
        np.asarray(icepts, dtype="<f8").tofile(f)
        B.indptr.astype("<i4").tofile(f)
        B.indices.astype("<i4").tofile(f)
        B.data.astype("<f8").tofile(f)
    return "done seconds=%.6f nlambda=%d n_iter=%d converged=%d" % (secs, len(alphas), iters, int(converged))


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    if line == "quit":
        break
    try:
        a = json.loads(line)
        if a.get("cmd") != "fit":
            raise ValueError("unknown command %r" % a.get("cmd"))
        ans = fit(a)
    except Exception as e:
        ans = "error " + " ".join(str(e).split())
    print(ans, flush=True)
