# PostgreSQL from Debian's package, for running deploy/docker-compose.yml's topology where no
# registry serves postgres:16-bookworm (scripts/image.sh compose). It reads the same variables
# as the official image: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB (made on the first start
# with an empty data directory), plus PGPORT and POSTGRES_LISTEN (listen_addresses, default *).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql \
 && chmod 0700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
ENV PGDATA=/var/lib/postgresql/data PGPORT=5432
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
# Fast shutdown (ends sessions) rather than SIGTERM's smart one, which waits for every client.
STOPSIGNAL SIGINT
HEALTHCHECK --interval=5s --timeout=3s --retries=10 CMD ["sh", "-c", "pg_isready -h 127.0.0.1 -p \"$PGPORT\" -U \"$POSTGRES_USER\""]
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]
