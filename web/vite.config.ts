import { defineConfig } from 'vite';

// Run as `vite build web`: paths are relative to web/. Relative asset URLs let the page work
// behind a reverse proxy that mounts the API under a sub-path.
export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
});
