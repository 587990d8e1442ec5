"""Plumbing every request passes through: the one error shape (errors), request and
answer schemas (schemas), strict JSON bodies (http), signed states (signing), CORS,
rate limits, the body guard, the request log and metrics."""
