package omoidehttp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omoide/omoide/omoidehttp"
)

// serveAsync runs Serve on a loopback listener and returns its address and
// the channel of its result.
func serveAsync(t *testing.T, ctx context.Context, h http.Handler, opts omoidehttp.ServeOptions) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- omoidehttp.Serve(ctx, ln, h, opts) }()
	return "http://" + ln.Addr().String(), done
}

// get sends GET url and reports the status, or the error, on the channel.
func get(url string) <-chan error {
	out := make(chan error, 1)
	go func() {
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = errors.New(resp.Status)
			}
		}
		out <- err
	}()
	return out
}

func waitServe(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return")
		return nil
	}
}

// TestServeShutdownWaits stops the server while a slow request runs: the
// request ends, uncancelled, and is answered before Serve returns nil.
func TestServeShutdownWaits(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	began := make(chan struct{})
	var finished atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(began)
		time.Sleep(300 * time.Millisecond)
		if r.Context().Err() != nil {
			t.Errorf("the request was cancelled: %v", r.Context().Err())
		}
		finished.Store(true)
		io.WriteString(w, "stored")
	})
	var shutdown atomic.Bool
	base, done := serveAsync(t, ctx, h, omoidehttp.ServeOptions{Server: func(srv *http.Server) {
		srv.RegisterOnShutdown(func() { shutdown.Store(true) })
	}})
	answered := get(base)
	<-began
	stop()
	if err := waitServe(t, done); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if !finished.Load() {
		t.Error("Serve returned before the request in flight ended")
	}
	if !shutdown.Load() {
		t.Error("the OnShutdown function registered through ServeOptions.Server did not run")
	}
	if err := <-answered; err != nil {
		t.Errorf("the request in flight: %v", err)
	}
}

// TestServeShutdownCancels stops the server while a request runs past
// ShutdownTimeout: the request's context is cancelled, and Serve returns,
// after the handler has, an error wrapping context.DeadlineExceeded.
func TestServeShutdownCancels(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	began := make(chan struct{})
	var cancelled atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(began)
		select {
		case <-r.Context().Done():
			time.Sleep(50 * time.Millisecond) // a handler that takes a while to give up
			cancelled.Store(true)
		case <-time.After(time.Minute):
		}
	})
	base, done := serveAsync(t, ctx, h, omoidehttp.ServeOptions{ShutdownTimeout: 200 * time.Millisecond})
	answered := get(base)
	<-began
	start := time.Now()
	stop()
	err := waitServe(t, done)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Serve: %v, want context.DeadlineExceeded", err)
	}
	if !cancelled.Load() {
		t.Error("Serve returned before the cancelled request ended, or it was not cancelled")
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 30*time.Second {
		t.Errorf("Serve returned %v after the stop, want ShutdownTimeout (200ms) and a little", d)
	}
	if err := <-answered; err == nil {
		t.Error("the cancelled request was answered 200")
	}
}

// TestServeClosedListener checks that Serve returns the listener's error at
// once when it cannot accept.
func TestServeClosedListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	done := make(chan error, 1)
	go func() {
		done <- omoidehttp.Serve(context.Background(), ln, http.NotFoundHandler(), omoidehttp.ServeOptions{})
	}()
	if err := waitServe(t, done); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Serve on a closed listener: %v, want net.ErrClosed", err)
	}
}

// TestServeDefaultTimeouts checks that the zero ServeOptions set every
// timeout of the server, the write timeout leaving room for the request
// timeout, and that a RequestTimeout given widens it.
func TestServeDefaultTimeouts(t *testing.T) {
	for _, tc := range []struct {
		request time.Duration
		write   time.Duration
	}{
		{0, time.Minute + omoidehttp.DefaultRequestTimeout + 10*time.Second},
		{2 * time.Minute, 3*time.Minute + 10*time.Second},
	} {
		ctx, stop := context.WithCancel(context.Background())
		got := make(chan *http.Server, 1)
		_, done := serveAsync(t, ctx, http.NotFoundHandler(), omoidehttp.ServeOptions{RequestTimeout: tc.request,
			Server: func(srv *http.Server) { got <- srv }})
		srv := <-got
		stop()
		if err := waitServe(t, done); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if srv.ReadHeaderTimeout <= 0 || srv.ReadHeaderTimeout > 30*time.Second || srv.ReadTimeout <= 0 || srv.IdleTimeout <= 0 {
			t.Errorf("timeouts: read header %v, read %v, idle %v; want all set, the header's at most 30s",
				srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout)
		}
		if srv.WriteTimeout != tc.write {
			t.Errorf("RequestTimeout %v: WriteTimeout %v, want %v", tc.request, srv.WriteTimeout, tc.write)
		}
	}
}
