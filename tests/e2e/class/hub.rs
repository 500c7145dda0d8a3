//! A class on a hub: two instances of `ticklab hub` on a throwaway PostgreSQL cluster; a
//! teacher starts a class from the page in Chromium on instance A; students in Chromium,
//! Firefox and WebKit join through instance B, run and send; the teacher's view shows
//! their three rows without a reload.

use super::live::a_student;
use super::*;

#[test]
fn a_class_started_on_a_hub_takes_three_engines_through_the_other_instance() {
    let _alone = one_browser_at_a_time();
    let site = built_site();
    let pg = ticklab_browser::postgres::Cluster::start().unwrap();
    let root = ["--root", site.to_str().unwrap()];
    let a = ticklab_browser::start_hub(Path::new(BIN), &pg.url(), 0, &root);
    let b = ticklab_browser::start_hub(Path::new(BIN), &pg.url(), 0, &root);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let chromium = driver("CHROMEDRIVER", "chromedriver");
    rt.block_on(async {
        let t = open(Browser::Chromium, &chromium, (1280, 2400)).await.unwrap();
        let c = &t.client;
        c.goto(&a.url()).await.unwrap();
        wait_for(c, "return document.body.dataset.hub === 'yes'", Duration::from_secs(30))
            .await
            .unwrap_or_else(|e| panic!("the page on a hub offers no class: {e}"));
        js(c, "document.getElementById('hub').scrollIntoView(); return 0").await.unwrap();
        let shot = target().join("e2e").join("hub-start.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, c.screenshot().await.unwrap()).unwrap();
        let terms = js(c, "return document.getElementById('hub-terms').textContent").await.unwrap();
        assert!(terms.as_str().unwrap().contains("deleted 30 days after it closes"), "{terms}");
        js(c, "document.getElementById('hub-start').click(); return 0").await.unwrap();
        wait_for(
            c,
            "return location.pathname.endsWith('/class.html') && document.body.dataset.live === 'yes'",
            Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("the teacher's view of the new class: {e}"));
        let v = js(
            c,
            "return [document.getElementById('join-url').textContent,
                     JSON.parse(localStorage.getItem('ticklab-hub-classes'))[0].code,
                     location.hash, document.getElementById('hub-note').textContent]",
        )
        .await
        .unwrap();
        let join = v[0].as_str().unwrap().to_string();
        let code = v[1].as_str().unwrap().to_string();
        assert_eq!(join, format!("http://127.0.0.1:{}/?class={code}", a.port));
        assert!(v[2].as_str().unwrap().starts_with(&format!("#class={code}&key=")), "{v}");
        assert!(v[3].as_str().unwrap().contains("24 hours"), "{v}");
        // Through the other instance: the load balancer may send a student anywhere.
        let through_b = format!("{}?class={code}", b.url());
        let mut summary = String::new();
        for (i, (browser, drv, isolated, _)) in documented().into_iter().enumerate() {
            let s = a_student(browser, &drv, None, &through_b, &format!("{browser:?}"))
                .await
                .unwrap_or_else(|e| panic!("{browser:?} student: {e}"));
            summary.push_str(&format!("{browser:?}: {}\n", s.sent));
            assert!(s.sent.starts_with("sent: Arrived"), "{browser:?}: {}", s.sent);
            // Reached at a secure origin, a hub's page is cross-origin isolated: the finer
            // figures.
            assert!(s.secure && s.isolated, "{browser:?}: secure {} isolated {}", s.secure, s.isolated);
            assert!(s.errors.is_empty(), "{browser:?}: {:?}", s.errors);
            let d: serde_json::Value = serde_json::from_str(&s.report).unwrap();
            let now = d["clocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["info"]["name"] == ticklab::digest::PAGE_NOW)
                .and_then(|k| k["tick"]["tick_ns"].as_f64());
            summary.push_str(&format!("  performance.now {now:?} ns (documented {isolated})\n"));
            wait_for(c, &format!("return document.body.dataset.rows === '{}'", i + 1), Duration::from_secs(10))
                .await
                .unwrap_or_else(|e| panic!("the teacher's view after {browser:?}: {e}"));
        }
        wait_for(c, "return document.body.dataset.plotted === '3'", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("the class's plot: {e}"));
        let errors = js(c, "return self.ticklabErrors").await.unwrap();
        assert_eq!(errors, serde_json::json!([]), "the teacher's page");
        let png = c.screenshot().await.unwrap();
        let shot = target().join("e2e").join("hub-teacher.png");
        std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
        std::fs::write(&shot, png).unwrap();
        eprintln!("{summary}teacher on A, students through B; screenshot {}", shot.display());
        let _ = c.clone().close().await;
    });
    drop((a, b, pg));
}
