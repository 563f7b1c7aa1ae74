// Package localcluster runs the deployment of deploy/ on loopback: "omoide
// serve" nodes, Litestream replicating each, and Caddy in front with
// deploy/Caddyfile. The cluster test of cmd/omoide and "bench cluster" both
// start their processes through it.
package localcluster

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Procs starts processes, each logging to Dir/NAME.log, and stops those
// still running. It is safe for concurrent use.
type Procs struct {
	Dir string

	mu      sync.Mutex
	started []*exec.Cmd
	logs    []*os.File
}

// Start starts cmd, its output going to Dir/name.log.
func (p *Procs) Start(name string, cmd *exec.Cmd) error {
	log, err := os.Create(p.LogPath(name))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started, p.logs = append(p.started, cmd), append(p.logs, log)
	return nil
}

// LogPath is where the process started as name logs.
func (p *Procs) LogPath(name string) string { return filepath.Join(p.Dir, name+".log") }

// Stop kills the processes still running and waits for them.
func (p *Procs) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cmd := range p.started {
		if cmd.ProcessState == nil && cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	for _, log := range p.logs {
		log.Close()
	}
	p.started, p.logs = nil, nil
}

// Serve is the command of a node: omoide (bin) serving db on addr as the
// node name, knowing the proxy's node list peers (each as the proxy's
// upstreams write it), with no token.
func Serve(bin, name, addr, db string, peers []string) *exec.Cmd {
	cmd := exec.Command(bin, "serve", "-db", db, "-node", name, "-addr", addr, "-peers", strings.Join(peers, " "),
		"-log-level", "warn", "-checkpoint-wait", "0")
	cmd.Env = append(os.Environ(), "OMOIDE_TOKEN=")
	return cmd
}

// Litestream writes Dir/name-litestream.yml, which replicates db to the
// folder replica (the log watched every 100 ms, synced every second), and
// starts litestream (in the folder tools) on it as name-litestream.
func (p *Procs) Litestream(tools, name, db, replica string) (*exec.Cmd, error) {
	cfg := filepath.Join(p.Dir, name+"-litestream.yml")
	yml := fmt.Sprintf("dbs:\n  - path: %s\n    monitor-interval: 100ms\n    replicas:\n      - url: file://%s\n        sync-interval: 1s\n", db, replica)
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(tools, "litestream"), "replicate", "-config", cfg)
	return cmd, p.Start(name+"-litestream", cmd)
}

// Proxy is Caddy (in the folder Tools) with the Caddyfile at Config,
// listening on Host:Port, its admin API on Admin, its state under Home.
type Proxy struct {
	Tools, Config, Home string
	Host, Port, Admin   string
}

// Run is the command that runs the proxy in front of nodes.
func (x Proxy) Run(nodes []string) *exec.Cmd {
	return x.command(nodes, "run", "--config", x.Config, "--adapter", "caddyfile")
}

// Reload is the command that gives the running proxy the node list nodes
// through its admin API: no restart, no request dropped.
func (x Proxy) Reload(nodes []string) *exec.Cmd {
	return x.command(nodes, "reload", "--config", x.Config, "--adapter", "caddyfile", "--address", x.Admin)
}

func (x Proxy) command(nodes []string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(x.Tools, "caddy"), args...)
	cmd.Env = append(os.Environ(), "OMOIDE_PROXY_HOST="+x.Host, "OMOIDE_PROXY_PORT="+x.Port, "OMOIDE_PROXY_ADMIN="+x.Admin,
		"OMOIDE_NODES="+strings.Join(nodes, " "), "HOME="+x.Home, "XDG_DATA_HOME="+x.Home, "XDG_CONFIG_HOME="+x.Home)
	return cmd
}

// FreeAddr returns a loopback address nothing listens on.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// WaitHTTP waits up to limit for u to answer 200 (client nil: the default
// client).
func WaitHTTP(client *http.Client, u string, limit time.Duration) error {
	if client == nil {
		client = http.DefaultClient
	}
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(u); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New(u + " never answered 200 within " + limit.String())
}
