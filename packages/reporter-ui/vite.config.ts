/**
 * Vite build of the dashboard: relative asset paths (`base: "./"`) so the reporter can serve
 * `dist/` under `/` or any prefix, with the hash router keeping every page on one `index.html`.
 */
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // What the first paint needs: every dependency statically imported by the entry.
            { name: "vendor", test: /node_modules[\\/]/, tags: ["$initial"], priority: 2 },
            // The rest (recharts and its dependencies): loaded on first use (components/lazy-charts.tsx).
            { name: "charts", test: /node_modules[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      "/v1": process.env.REPORTER_URL ?? "http://127.0.0.1:8080",
      "/v2": process.env.REPORTER_URL ?? "http://127.0.0.1:8080",
    },
  },
});
