# Doorman in a container: built in one stage (TypeScript compiled into dist/server/, the browser
# SDK and the analyst console bundled into dist/browser/, dev dependencies pruned), run in a slim
# second stage as the unprivileged `node` user. The smoke stage of `npm test` (scripts/smoke.mjs)
# runs the same steps on a clean copy of the tree: build, prune, migrate, serve. The stores
# (Postgres, Neo4j, Redis) are other containers: see docker-compose.yml.
# Node: the version in .nvmrc (test/architecture.test.ts checks that they agree).
ARG NODE_VERSION=24.21.0
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY sdk ./sdk
COPY console ./console
COPY scripts/build-sdk.mjs scripts/build-console.mjs ./scripts/
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9464
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY cypher ./cypher
COPY data ./data
USER node
# 8080: the API; 9464: /metrics (keep it off the public load balancer).
EXPOSE 8080 9464
# /health is the liveness and readiness probe: 503 while warming up or while a store is down.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/doorman.js"]
CMD ["serve"]
