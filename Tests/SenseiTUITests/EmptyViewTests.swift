import Testing
import SenseiModels
@testable import SenseiTUI

/// What the list area says when there is nothing to list.
@Suite struct EmptyViewTests {
    func screen(_ model: AppModel) -> String { AppView.render(model).text }

    /// A server without sensors: how a device creates one.
    @Test func noSensors80x24() {
        let model = Fixture.model(sensors: [])
        // snapshot: empty80x24
        #expect(screen(model) == """
         Sensei · sensei.lan:3000









                                        No sensors yet.

                      A device creates its sensor with its first reading:
                     POST sensei.lan:3000/sensors/CODE/data {"value": 23.5}









        ● online · synced 12s ago                              r refresh  ? help  q quit
        """)
    }

    /// Tiny: the headline first.
    @Test func noSensors20x5() {
        let model = Fixture.model(width: 20, height: 5, sensors: [])
        // snapshot: empty20x5
        #expect(screen(model) == """
         Sensei · sensei.la…
          No sensors yet.

          A device creates
        ● online · synced 1…
        """)
    }

    /// No server configured.
    @Test func notConfigured() {
        var model = AppModel(width: 40, height: 12, now: Fixture.now, serverName: nil)
        _ = model.start()
        _ = model.update(.sensorsLoaded([]))
        // snapshot: notConfigured
        #expect(screen(model) == """
         Sensei


                    Not configured.

                Start with: sensei --url
             http://HOST:3000 --token TOKEN
          or set SENSEI_URL and SENSEI_TOKEN.



        not connected · never synced
        """)
    }

    /// Before the cache answers.
    @Test func loadingTheCache() {
        var model = AppModel(width: 40, height: 12, now: Fixture.now, serverName: "sensei.lan:3000")
        _ = model.start()
        // snapshot: loading
        #expect(screen(model) == """
         Sensei · sensei.lan:3000




                        Loading…





        connecting · syncing      ? help  q quit
        """)
    }

    /// An empty cache and the first sync still running.
    @Test func waitingForTheFirstSync() {
        var model = AppModel(width: 40, height: 12, now: Fixture.now, serverName: "sensei.lan:3000")
        _ = model.start()
        _ = model.update(.sensorsLoaded([]))
        // snapshot: waiting
        #expect(screen(model) == """
         Sensei · sensei.lan:3000




              Waiting for the first sync…





        connecting · syncing      ? help  q quit
        """)
    }

    /// An empty cache and no server.
    @Test func offlineWithAnEmptyCache() {
        var model = AppModel(width: 40, height: 12, now: Fixture.now, serverName: "sensei.lan:3000")
        _ = model.start()
        _ = model.update(.sensorsLoaded([]))
        _ = model.update(.syncFailed(.unreachable("connection refused"), at: Fixture.now.adding(milliseconds: -125_000)))
        // snapshot: offlineEmpty
        #expect(screen(model) == """
         Sensei · sensei.lan:3000


                No sensors in the cache.

          The server at sensei.lan:3000 cannot
         be reached; the list fills in once it
                        answers.



        offline since 11:57 · never synced
        """)
    }

    /// A rejected token before anything was synced: said in the middle and in the status bar.
    @Test func unauthorizedBeforeTheFirstSync() {
        var model = AppModel(width: 60, height: 10, now: Fixture.now, serverName: "sensei.lan:3000")
        _ = model.start()
        _ = model.update(.sensorsLoaded([]))
        _ = model.update(.syncFailed(.unauthorized, at: Fixture.now))
        // snapshot: unauthorized
        #expect(screen(model) == """
         Sensei · sensei.lan:3000


                                Cannot sync.

                       unauthorized: check your token



        ● online · unauthorized: check your token     ? help  q quit
        """)
    }


}
