// GET /demo/device: the local demo of device tokens, mounted only when DEMO_PAGES=true
// (`npm start` turns it on). A static page, so unmetered; it calls the API like any client.
import { Router } from 'express';
import { demoDevicePage } from './demo-page.js';

export function demoRoutes(): Router {
  const router = Router();
  router.get('/demo/device', (_req, res) => {
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
    res.type('html').send(demoDevicePage);
  });
  return router;
}
