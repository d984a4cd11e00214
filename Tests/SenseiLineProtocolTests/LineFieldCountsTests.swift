import SenseiLineProtocol
import Testing

/// `fieldCounts` (what `sensei import` counts as it sends) past escapes and
/// strings, and in agreement with the full parse on lines the parser accepts.
@Suite struct LineFieldCountsTests {
    static func counts(_ text: String) -> (numeric: Int, strings: Int) {
        Array(text.utf8).withUnsafeBufferPointer { LineProtocolParser.fieldCounts($0) }
    }

    @Test func fieldsAreCountedPastEscapesAndStrings() {
        #expect(Self.counts(#"m,t=a\ b x=1,s="a \" b, c=2",y=true 1"#) == (2, 1))
        #expect(Self.counts(#"m\ n,t=a\,b v=1i"#) == (1, 0))
        #expect(Self.counts("m") == (0, 0))
    }

    @Test func countsAgreeWithTheParser() {
        let lines = [
            "cpu,host=a,region=us-west usage_idle=98.5,usage_user=1.2 1700000000000000000",
            #"°C,domain=sensor,entity_id=living_room value=21.3,friendly_name_str="Living room" 1700000000000000000"#,
            #"weather,location=us\ midwest temperature=82i,ok=t,text="hot, \"dry\"" 1465839830100400200"#,
            "mem,host=b used=123u,avail=9.1e3,flag=FALSE -1",
            #"foo\,bar,tag\=k=v\ x f\ k=1.,g=.5 0"#,
        ]
        for line in lines {
            var parser = LineProtocolParser()
            var numeric = 0, strings = 0
            Array(line.utf8).withUnsafeBufferPointer { buffer in
                parser.parse(buffer, accept: { parsed in
                    for field in parsed.fields {
                        if case .string = field.value { strings += 1 } else { numeric += 1 }
                    }
                }, refuse: { Issue.record("refused: \($0)") })
            }
            #expect(Self.counts(line) == (numeric, strings), "\(line)")
        }
    }
}
