// otlpsink: a minimal OTLP/gRPC profiles receiver for the interoperability check (docs/interop.md).
// It prints one line per profile sample: the sample's process, linked trace-id/span-id and its
// attributes (thread.name, thread.id, process.context.label.<key> from OTEP 4947 records), and
// one RESOURCE line per resource (the OTEP 4719 process context shows up there).
//
//	SAMPLE pid=P n=N trace=T span=S k=v ...
//	RESOURCE k=v ...
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // the profiler compresses its requests
)

type server struct {
	*pprofileotlp.UnimplementedGRPCServer
}

func (server) Export(_ context.Context, req pprofileotlp.ExportRequest) (pprofileotlp.ExportResponse, error) {
	p := req.Profiles()
	dic := p.Dictionary()
	strs, attrs, links := dic.StringTable(), dic.AttributeTable(), dic.LinkTable()
	var out strings.Builder
	for i := 0; i < p.ResourceProfiles().Len(); i++ {
		rp := p.ResourceProfiles().At(i)
		var res []string
		for k, v := range rp.Resource().Attributes().All() {
			res = append(res, k+"="+v.AsString())
		}
		sort.Strings(res)
		fmt.Fprintf(&out, "RESOURCE %s\n", strings.Join(res, " "))
		pid := "?"
		if v, ok := rp.Resource().Attributes().Get("process.pid"); ok {
			pid = v.AsString()
		}
		for j := 0; j < rp.ScopeProfiles().Len(); j++ {
			sp := rp.ScopeProfiles().At(j)
			for k := 0; k < sp.Profiles().Len(); k++ {
				samples := sp.Profiles().At(k).Samples()
				for s := 0; s < samples.Len(); s++ {
					smp := samples.At(s)
					trace, span := "-", "-"
					if li := int(smp.LinkIndex()); li > 0 && li < links.Len() {
						l := links.At(li)
						trace = fmt.Sprintf("%x", [16]byte(l.TraceID()))
						span = fmt.Sprintf("%x", [8]byte(l.SpanID()))
					}
					var sa []string
					for _, ai := range smp.AttributeIndices().All() {
						kv := attrs.At(int(ai))
						sa = append(sa, strs.At(int(kv.KeyStrindex()))+"="+kv.Value().AsString())
					}
					fmt.Fprintf(&out, "SAMPLE pid=%s n=%d trace=%s span=%s %s\n", pid,
						smp.TimestampsUnixNano().Len(), trace, span, strings.Join(sa, " "))
				}
			}
		}
	}
	os.Stdout.WriteString(out.String())
	return pprofileotlp.NewExportResponse(), nil
}

func main() {
	addr := flag.String("listen", "127.0.0.1:4317", "address to listen on")
	flag.Parse()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(1)
	}
	s := grpc.NewServer()
	pprofileotlp.RegisterGRPCServer(s, server{&pprofileotlp.UnimplementedGRPCServer{}})
	fmt.Fprintln(os.Stderr, "otlpsink: listening on", *addr)
	if err := s.Serve(lis); err != nil {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(1)
	}
}
