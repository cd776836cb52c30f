# The Worker as wrangler would configure it: compatibility date 2025-09-01 and no compatibility
# flags, so no `nodejs_compat`. The socket's address is given on the command line (--socket-addr).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "../dist/worker.js")],
  compatibilityDate = "2025-09-01",
);
