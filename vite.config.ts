import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  // Relative base: dist/ works from any sub-path of any static host.
  base: './',
  plugins: [react()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  server: { port: Number(process.env.FLAMELENS_PORT ?? 5173) },
  preview: {
    port: Number(process.env.FLAMELENS_PORT ?? 4173),
    strictPort: Boolean(process.env.FLAMELENS_PORT),
  },
});
