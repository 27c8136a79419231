# The glmnet side of bench/glmnet: Rscript glmnet.R DATA FEATURES
#
# Reads the libsvm file DATA into a sparse dgCMatrix of FEATURES columns
# (not timed), prints "ready ...", then answers one command per line of
# standard input with one line on standard output:
#
#   cmd=fit lambda=FILE|default nlambda=N thresh=T alpha=A intercept=0|1 standardize=0|1 out=FILE
#   cmd=cv  lambda=FILE|default nlambda=N thresh=T alpha=A intercept=0|1 standardize=0|1 foldid=FILE out=FILE
#   quit
#
# fit times the glmnet() call alone and writes its coefficients to out:
# int32 nlambda, float64 lambda[nlambda], float64 a0[nlambda], int32
# colptr[nlambda+1], int32 row[nnz] (0-based feature), float64 x[nnz]
# (little endian), the slots of its dgCMatrix beta. cv times cv.glmnet()
# alone and writes int32 nlambda, float64 lambda, cvm, cvsd, then int32
# nzero. The answer is "done key=value ..." or "error MESSAGE".
suppressPackageStartupMessages({
  library(Matrix)
  library(glmnet)
})
args <- commandArgs(trailingOnly = TRUE)
t0 <- proc.time()[["elapsed"]]
nfeat <- as.integer(args[2])
lines <- readLines(args[1])
lines <- trimws(sub("#.*$", "", lines))
lines <- lines[nzchar(lines)]
sp <- strsplit(lines, "[ \t]+")
y <- as.numeric(vapply(sp, function(s) s[1], ""))
tok <- lapply(sp, function(s) s[-1])
row <- rep.int(seq_along(tok), lengths(tok))
tok <- unlist(tok, use.names = FALSE)
keep <- !startsWith(tok, "qid:")
tok <- tok[keep]
row <- row[keep]
X <- sparseMatrix(i = row, j = as.integer(sub(":.*$", "", tok)),
                  x = as.numeric(sub("^[^:]*:", "", tok)), dims = c(length(y), nfeat))
rm(sp, tok, row, keep, lines)
invisible(gc())
cat(sprintf("ready rows=%d features=%d nnz=%d parse_s=%.3f glmnet=%s\n", nrow(X), ncol(X),
            length(X@x), proc.time()[["elapsed"]] - t0, as.character(packageVersion("glmnet"))))
flush(stdout())

wint <- function(con, v) writeBin(as.integer(v), con, size = 4, endian = "little")
wdbl <- function(con, v) writeBin(as.double(v), con, size = 8, endian = "little")

glmargs <- function(a) {
  g <- list(x = X, y = y, family = "gaussian", alpha = as.numeric(a$alpha),
            thresh = as.numeric(a$thresh), intercept = a$intercept == "1",
            standardize = a$standardize == "1")
  if (a$lambda != "default") {
    g$lambda <- scan(a$lambda, quiet = TRUE)
  } else if (!is.null(a$nlambda)) {
    g$nlambda <- as.integer(a$nlambda)
  }
  g
}

fit <- function(a) {
  g <- glmargs(a)
  gc()
  secs <- system.time(f <- do.call(glmnet, g))[["elapsed"]]
  b <- as(f$beta, "CsparseMatrix")
  con <- file(a$out, "wb")
  wint(con, length(f$lambda))
  wdbl(con, f$lambda)
  wdbl(con, f$a0)
  wint(con, b@p)
  wint(con, b@i)
  wdbl(con, b@x)
  close(con)
  sprintf("done seconds=%.6f nlambda=%d npasses=%d jerr=%d", secs, length(f$lambda), f$npasses, f$jerr)
}

cv <- function(a) {
  g <- glmargs(a)
  g$foldid <- as.integer(scan(a$foldid, quiet = TRUE))
  gc()
  secs <- system.time(f <- do.call(cv.glmnet, g))[["elapsed"]]
  con <- file(a$out, "wb")
  wint(con, length(f$lambda))
  wdbl(con, f$lambda)
  wdbl(con, f$cvm)
  wdbl(con, f$cvsd)
  wint(con, f$nzero)
  close(con)
  sprintf("done seconds=%.6f nlambda=%d lambda_min=%.17g lambda_1se=%.17g", secs, length(f$lambda),
          f$lambda.min, f$lambda.1se)
}

con <- file("stdin", "r")
repeat {
  line <- readLines(con, n = 1)
  if (length(line) == 0 || line == "quit") break
  kv <- strsplit(strsplit(line, " ", fixed = TRUE)[[1]], "=", fixed = TRUE)
  a <- setNames(lapply(kv, function(p) p[2]), vapply(kv, function(p) p[1], ""))
  ans <- tryCatch(switch(a$cmd, fit = fit(a), cv = cv(a), stop("unknown command ", a$cmd)),
                  error = function(e) paste("error", gsub("[\r\n]+", " ", conditionMessage(e))))
  cat(ans, "\n", sep = "")
  flush(stdout())
}
