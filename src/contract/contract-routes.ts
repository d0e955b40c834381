// GET /v1/openapi.json: the machine-readable contract, public like the documentation it is.
import { Router } from 'express';
import { openApiDocument } from './openapi.js';

export function contractRoutes(): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument);
  router.get('/v1/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', 'public, max-age=300').send(body);
  });
  return router;
}
