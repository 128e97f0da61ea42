# nginx from Debian's package (the one test/cache/scale-out.test.ts runs), with
# deploy/nginx.conf mounted by docker-compose.yml.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends nginx \
 && rm -rf /var/lib/apt/lists/*
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
