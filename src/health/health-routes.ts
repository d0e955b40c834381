// GET /health: unauthenticated and unmetered; 200 when every dependency answers and the process
// is warm, 503 otherwise (status `unavailable`, or `warming` during start-up).
import { Router } from 'express';
import { checkHealth, type HealthDeps } from './check-health.js';

export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const health = await checkHealth(deps);
    res.set('Cache-Control', 'no-store');
    // Ready for traffic only once warm (a readiness probe keeps a warming instance out).
    if (deps.warmState() === 'warming') {
      res.status(503).json({ error: 'internal', message: 'Warming up: not serving verdicts yet.', ...health, status: 'warming' });
      return;
    }
    if (health.status === 'ok') {
      res.json(health);
      return;
    }
    // A 503 is still an error response (contract §7): it carries error and message beside the report.
    const down = Object.entries(health.checks)
      .filter(([, c]) => c.status === 'down')
      .map(([name]) => name);
    res.status(503).json({ error: 'internal', message: `Dependency down: ${down.join(', ')}.`, ...health });
  });
  return router;
}
