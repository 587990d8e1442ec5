"""Running the service: ``python -m service.run.serve`` (gunicorn with gunicorn_conf,
the embedded Redis of embedded unless REDIS_URL is set, and a sweeper)."""
