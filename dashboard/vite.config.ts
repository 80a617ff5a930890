/**
 * Builds HMC's tab for Hermes' web dashboard into dashboard/dist: one IIFE (index.js) that uses
 * the React of Hermes' plugin SDK (nothing bundled from npm), and its style.css.
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    sourcemap: false,
    reportCompressedSize: false,
    lib: {
      entry: fileURLToPath(new URL('src/index.ts', import.meta.url)),
      formats: ['iife'],
      name: 'HmcHermesTab',
      fileName: () => 'index.js',
      cssFileName: 'style',
    },
  },
});
