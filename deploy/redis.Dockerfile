# Redis from Debian's package, for running deploy/docker-compose.yml's topology where no
# registry serves redis:7-bookworm (scripts/image.sh compose). Arguments as for redis-server;
# the port comes from REDIS_PORT (default 6379), so the health check finds it.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
USER redis
WORKDIR /var/lib/redis
EXPOSE 6379
ENV REDIS_PORT=6379
HEALTHCHECK --interval=5s --timeout=3s --retries=10 CMD ["sh", "-c", "redis-cli -p \"$REDIS_PORT\" ping"]
ENTRYPOINT ["sh", "-c", "exec redis-server --port \"$REDIS_PORT\" \"$@\"", "redis-server"]
CMD ["--save", "", "--appendonly", "no"]
